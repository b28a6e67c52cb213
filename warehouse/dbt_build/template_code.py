"""The Python code of the Jinja templates dbt compiles from strings, kept for the process and
compiled before a build needs it.

On every node of a build dbt compiles Jinja source text into Python code afresh: the node's SQL,
and each argument of a data test (``get_rendered`` builds a new environment and calls its
``from_string``); the macros are cached by dbt itself (:mod:`~biaswh.warehouse.dbt_build.macro_templates`).
The warm real dialect study's results build compiled 131 such strings, 0.06 s of CPU on its
critical path. Here the compiled code is kept per environment kind and source text (the code
depends on nothing else: :func:`_kind`), each build's strings are recorded in the warehouse's dbt
folder (:func:`record_compiled`), and the study run's dbt child compiles the recorded ones while it
waits for its next request (:func:`compile_recorded`). A template made from kept code is the one
dbt would have made: no build's SQL changes.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Callable, Iterator

from biaswh.warehouse.database.output_files import write_text_atomically
from biaswh.warehouse.dbt_build.macro_templates import compile_each

# In the warehouse's dbt target folder: [native, source] of the strings its builds compiled.
COMPILED_STRINGS_FILE = "compiled_strings.json"
# At most this many recorded strings (the newest kept) and kept code objects per process.
MOST_RECORDED = 2000
MOST_KEPT = 10000

_KEPT: dict[tuple, object] = {}
_NEW: dict[tuple[bool, str], None] = {}  # compiled in this process since the last record


def _kind(env) -> tuple | None:
    """What the compiled code of a source depends on besides the source: the environment's class,
    filters, tests and extensions. None for an environment dbt builds with a node's own undefined
    class (parsing captures macros that way): its code is not kept."""
    import jinja2

    if env.undefined is not jinja2.Undefined:
        return None
    return (type(env), tuple(sorted(env.filters)), tuple(sorted(env.tests)), tuple(sorted(env.extensions)))


def install() -> None:
    """Keep the compiled code of dbt's string templates for this process (idempotent)."""
    from dbt_common.clients.jinja import MacroFuzzEnvironment, NativeSandboxEnvironment

    original = MacroFuzzEnvironment.compile
    if getattr(original, "kept", False):
        return

    def compile(self, source, name=None, filename=None, raw=False, defer_init=False):
        kind = None if raw or not isinstance(source, str) else _kind(self)
        if kind is None:
            return compile.original(self, source, name, filename, raw, defer_init)
        key = (kind, source, name, filename, defer_init)
        code = _KEPT.get(key)
        if code is None:
            code = compile.original(self, source, name, filename, raw, defer_init)
            if len(_KEPT) < MOST_KEPT:
                _KEPT[key] = code
            if name is None and filename is None and not defer_init:
                _NEW[(type(self) is NativeSandboxEnvironment, source)] = None
        return code

    compile.kept = True
    compile.original = original
    MacroFuzzEnvironment.compile = compile


def _recorded(path: Path) -> list[tuple[bool, str]]:
    try:
        items = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(items, list):
        return []
    return [
        (item[0], item[1])
        for item in items
        if isinstance(item, list) and len(item) == 2 and isinstance(item[0], bool) and isinstance(item[1], str)
    ]


def record_compiled(target_path: Path) -> None:
    """Add the strings this process compiled since the last call to the record in ``target_path``
    (the newest first, at most :data:`MOST_RECORDED`; rewritten only when it changes)."""
    if not _NEW:
        return
    path = target_path / COMPILED_STRINGS_FILE
    before = _recorded(path)
    new = list(_NEW)
    _NEW.clear()
    merged = list(dict.fromkeys([*new, *before]))[:MOST_RECORDED]
    if merged != before:
        target_path.mkdir(parents=True, exist_ok=True)
        write_text_atomically(path, json.dumps([list(item) for item in merged], indent=0) + "\n")


def compile_recorded(target_path: Path, *, keep_going: Callable[[], bool]) -> int:
    """Compile the recorded strings not yet kept, while ``keep_going()`` holds; the number compiled.
    A string that fails to compile is left to the build that renders it (which reports it)."""
    install()
    return compile_each(_pending(_recorded(target_path / COMPILED_STRINGS_FILE)), keep_going=keep_going)


def _pending(recorded: list[tuple[bool, str]]) -> Iterator[Callable[[], None]]:
    from dbt_common.clients.jinja import get_environment

    environments = {native: get_environment(None, False, native=native) for native in (False, True)}
    for native, source in recorded:
        if (_kind(environments[native]), source, None, None, False) not in _KEPT:
            yield partial(_compile, environments[native], native, source)


def _compile(env, native: bool, source: str) -> None:
    env.compile(source)
    _NEW.pop((native, source), None)  # compiled from the record: nothing new to record
