"""The Jinja templates of the macros a warehouse's builds call, compiled before a build needs them.

dbt compiles a macro's template the first time a process calls it (dbt_common's template cache,
keyed by the macro's text) and keeps it for the process. A study run's dbt child is a new
process per ``biaswh run``, so every run's results build paid it again: the warm real dialect
study's results build compiled 110 of the project's 671 macros (all 671 take 1.45 s of CPU).
The child records which macros its builds called (:func:`record_called`, in the warehouse's
dbt folder) and compiles those (:func:`compile_recorded`) while it waits for its next request,
one macro at a time, stopping as soon as a request arrives. A template compiled early is the
same template dbt would have compiled on the call: no build's SQL changes.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Callable, Iterable

from biaswh.warehouse.database.output_files import write_text_atomically

# In the warehouse's dbt target folder: the unique ids of the macros its builds have called.
CALLED_MACROS_FILE = "called_macros.json"


def _recorded(path: Path) -> list[str]:
    try:
        names = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [name for name in names if isinstance(name, str)] if isinstance(names, list) else []


def record_called(manifest, target_path: Path) -> None:
    """Add the macros of ``manifest`` whose templates this process has compiled to the record in
    ``target_path`` (rewritten only when it grows)."""
    from dbt_common.clients.jinja import template_cache

    compiled = template_cache.file_cache
    path = target_path / CALLED_MACROS_FILE
    before = _recorded(path)
    called = set(before) | {uid for uid, macro in manifest.macros.items() if macro.macro_sql in compiled}
    if len(called) > len(before):
        target_path.mkdir(parents=True, exist_ok=True)
        write_text_atomically(path, json.dumps(sorted(called), indent=0) + "\n")


def compile_recorded(manifest, target_path: Path, *, keep_going: Callable[[], bool]) -> int:
    """Compile the templates of the recorded macros of ``manifest`` not yet compiled, while
    ``keep_going()`` holds; the number compiled. A macro that fails to compile is left to the
    build that calls it (which reports it)."""
    from dbt_common.clients.jinja import template_cache

    macros = (manifest.macros.get(uid) for uid in _recorded(target_path / CALLED_MACROS_FILE))
    pending = (
        partial(template_cache.get_node_template, macro)
        for macro in macros
        if macro is not None and macro.macro_sql not in template_cache.file_cache
    )
    return compile_each(pending, keep_going=keep_going)


def compile_each(pending: Iterable[Callable[[], object]], *, keep_going: Callable[[], bool]) -> int:
    """Call each of ``pending`` (a compile) while ``keep_going()`` holds; the number that succeeded.
    One that raises is left to the build that needs it (which says what is wrong)."""
    done = 0
    for compile_one in pending:
        if not keep_going():
            break
        try:
            compile_one()
        except Exception:  # noqa: BLE001 - the build that needs it says what is wrong
            continue
        done += 1
    return done
