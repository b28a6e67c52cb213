"""Call dbt inside this Python process: the project parsed once per process, its manifest reused.

A ``dbt`` subprocess pays Python's and dbt's start-up and the project's parse on every build
(seconds each, whatever the size of the run). Here :func:`invoke_dbt` runs any dbt command
through ``dbt.cli.main.dbtRunner``; the first call for a project state and target parses it
(partial parsing kept in the warehouse's own ``$BIASWH_HOME/dbt/target``), every later call
reuses that manifest. The manifest does not depend on the warehouse: each call reads the
profile (so ``BIASWH_HOME``) afresh, and the data a build tests is named by environment
variables read when it executes (``BIASWH_BUILD_RUN_IDS``).

dbt-duckdb opens the warehouse file from this process. DuckDB shares one database instance per
file and process only for connections of the same configuration, and our connections set a
memory limit: so no connection of ours may be open on the file during a call, and dbt's own is
closed when the call ends (:func:`_close_dbt_connection`), before our next open. Other targets
(``--target spark``) use the same function: their manifest is cached apart.
"""

from __future__ import annotations

import gc
import logging
import os
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, Sequence

from biaswh.warehouse.database.output_files import write_text_atomically
from biaswh.warehouse.dbt_build.build_state import project_digest
from biaswh.warehouse.dbt_build.event_messages import install as install_event_messages
from biaswh.warehouse.dbt_build.invocation_cache import install as install_invocation_cache
from biaswh.warehouse.dbt_build.macro_namespace import install as install_macro_namespace
from biaswh.warehouse.dbt_build.node_index import install as install_indexed_selection
from biaswh.warehouse.dbt_build.options import full_args, parse_options
from biaswh.warehouse.dbt_build.parse_cache import (
    DUCKDB_FILE_VARIABLE,
    HOME_DIRECTORY_VARIABLE,
    load_parsed,
    seed_partial_parse,
    share_partial_parse,
    store_parsed,
)
from biaswh.warehouse.dbt_build.template_code import install as install_template_code
from biaswh.warehouse.dbt_build.warm_start import start_in_background, wait_for_dbt
from biaswh.warehouse.settings.home import warehouse_paths

# Events whose text is what `dbt build` prints on a terminal: the per-node lines go to the log.
_LOGGED_LEVELS = {"info", "warn", "error"}
_MANIFESTS: dict[tuple[str, ...], object] = {}
_LAST_USED: list = []
# dbt keeps process-wide state (flags, the adapter factory, the event manager): one call at a time.
_ONE_AT_A_TIME = threading.Lock()


def dbt_folder() -> Path:
    """Where dbt keeps this warehouse's target (compiled SQL, run results, partial parse) and logs."""
    return warehouse_paths().home / "dbt"


@contextmanager
def _working_directory(folder: Path) -> Iterator[None]:
    """The working directory is ``folder`` for the call (dbt opens the file by its bare name), restored after."""
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


@contextmanager
def environment(values: dict[str, str | None]) -> Iterator[None]:
    """``os.environ`` holding ``values`` (None: unset) for the call (dbt's env_var reads it), restored after."""

    def apply(settings: dict[str, str | None]) -> None:
        for name, value in settings.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value

    before = {name: os.environ.get(name) for name in values}
    apply(values)
    try:
        yield
    finally:
        apply(before)


def _close_dbt_connection() -> None:
    """Close dbt-duckdb's database instance, so the next open of the file by us starts clean."""
    try:
        from dbt.adapters.duckdb.connections import DuckDBConnectionManager
    except ImportError:  # another adapter only (e.g. Spark)
        return
    with DuckDBConnectionManager._LOCK:
        env = DuckDBConnectionManager._ENV
        DuckDBConnectionManager._ENV = None
        if env is not None:
            env.close()


def _log_writer(log_file: Path | None) -> tuple[Callable, Callable[[], None]]:
    """A dbt callback writing the events a terminal would show to ``log_file`` (flushed per line)."""
    if log_file is None:
        return (lambda _event: None), (lambda: None)
    handle = open(log_file, "a", encoding="utf-8")
    lock = threading.Lock()

    def write(event) -> None:
        if event.info.level in _LOGGED_LEVELS and event.info.msg:
            stamp = time.strftime("%H:%M:%S")
            with lock:
                handle.write(f"{stamp}  {event.info.msg}\n")
                handle.flush()

    return write, handle.close


def _keep(key: tuple[str, ...], manifest):
    """Cache ``manifest`` for this process and take it out of the garbage collector's full passes.

    A parsed project is about a million long-lived objects; every full collection would walk
    them all (statsmodels' Holm correction calls ``gc.collect()`` on each call: about 2 s each
    with a manifest loaded, 21 of a demo run's 57 s when measured). Collected once, then frozen
    (:func:`gc.freeze`): later collections see only what was made after the parse.
    """
    _MANIFESTS[key] = manifest
    gc.collect()
    gc.freeze()
    return manifest


def invoke_dbt(
    args: Sequence[str],
    *,
    env: dict[str, str] | None = None,
    callbacks: Sequence[Callable] = (),
    log_file: Path | None = None,
    console: bool = False,
):
    """Run the dbt command ``args`` (e.g. ``["build", "--select", "x"]``) in this process.

    Parameters
    ----------
    args
        A dbt command and its options; ``--target NAME`` picks a profile target (its parsed
        project is cached apart from the default target's).
    env
        Environment variables set for the call only (the profile and macros read them).
    callbacks
        Functions called with every dbt event (``event.info.name``, ``event.data``), e.g.
        ``NodeStart`` and ``NodeFinished`` for progress.
    log_file
        Where the lines dbt would print go (appended); the terminal gets them only when ``console``.

    Returns
    -------
    dbtRunnerResult
        ``success``, ``exception`` and ``result`` (a ``RunExecutionResult`` for build/run/test).
    """
    wait_for_dbt()  # a background start of dbt (warm_start.py) ends before any call
    from dbt.cli.main import dbtRunner

    paths = warehouse_paths()
    folder = dbt_folder()
    target_path, log_path = folder / "target", folder / "logs"
    log_path.mkdir(parents=True, exist_ok=True)
    parse_args = parse_options(args)
    key = (project_digest(), *parse_args)
    write, close_log = _log_writer(log_file)
    values = {DUCKDB_FILE_VARIABLE: paths.duckdb_file.name, HOME_DIRECTORY_VARIABLE: ".", **(env or {})}
    try:
        with _ONE_AT_A_TIME, environment(values), _working_directory(paths.home):
            close_dbt_log_files()  # reopened by a late event? closed before dbt drops the handler
            options = dict(log_path=log_path, target_path=target_path, console=console)
            manifest = _MANIFESTS.get(key)
            if args[0] == "parse":
                parsed = _parse(args, parse_args, target_path, options, callbacks=[write, *callbacks])
                if parsed.success:
                    _write_manifest(_keep(key, parsed.result), target_path, key)
                    store_parsed(parsed.result, key[0], parse_args)
                return parsed
            if manifest is None and args[0] not in ("debug", "deps", "clean"):
                manifest = load_parsed(key[0], parse_args)  # another process's parse of this same project
                if manifest is not None:
                    _keep(key, manifest)
            if manifest is None and args[0] not in ("debug", "deps", "clean"):
                parsed = _parse(["parse", *parse_args], parse_args, target_path, options, callbacks=[write])
                if parsed.success:
                    manifest = _keep(key, parsed.result)
                    store_parsed(manifest, key[0], parse_args)
                else:
                    return parsed
            _LAST_USED[:] = [manifest]
            close_dbt_log_files()  # the parse above left its handler, which the next invocation drops
            install_indexed_selection()
            install_invocation_cache()
            install_template_code()
            install_macro_namespace()
            install_event_messages()
            try:
                runner = dbtRunner(manifest=manifest, callbacks=[write, *callbacks])
                outcome = runner.invoke(full_args(args, **options))
            finally:
                _close_dbt_connection()
            # After the call: writing an artifact reads dbt's flags, which a call sets.
            if manifest is not None:
                _write_manifest(manifest, target_path, key)
            if hasattr(outcome.result, "write"):  # a build's, run's or test's results
                outcome.result.write(str(target_path / "run_results.json"))
            return outcome
    finally:
        close_dbt_log_files()
        close_log()


def _write_manifest(manifest, target_path: Path, key: tuple[str, ...]) -> None:
    """dbt's ``manifest.json`` for this warehouse (docs, tools and tests read it), rewritten only
    when the project or the parse options differ from those it was last written for."""
    stamp, written = target_path / ".manifest-key", "\n".join(key)
    if (target_path / "manifest.json").exists() and stamp.exists() and stamp.read_text(encoding="utf-8") == written:
        return
    target_path.mkdir(parents=True, exist_ok=True)
    manifest.write(str(target_path / "manifest.json"))
    write_text_atomically(stamp, written)


def _parse(args: Sequence[str], parse_args: Sequence[str], target_path: Path, options: dict, *, callbacks):
    """``dbt parse`` from the machine's shared parse state when this warehouse has none yet, the
    state it leaves shared in turn (:mod:`biaswh.warehouse.dbt_build.parse_cache`)."""
    from dbt.cli.main import dbtRunner

    seed_partial_parse(target_path, parse_args)
    started = time.time_ns()
    parsed = dbtRunner(callbacks=callbacks).invoke(full_args(args, **options))
    if parsed.success:
        share_partial_parse(target_path, parse_args, started)
    return parsed


def close_dbt_log_files() -> None:
    """Close dbt's log file handlers: dbt swaps them on every in-process invocation without closing
    the old one, which would leave each warehouse's ``dbt.log`` open until garbage collection."""
    from dbt_common.events.event_manager_client import get_event_manager

    for dbt_logger in get_event_manager().loggers:
        python_logger = getattr(dbt_logger, "_python_logger", None)
        for handler in list(python_logger.handlers) if python_logger else []:
            if isinstance(handler, logging.FileHandler):
                handler.close()


def last_manifest():
    """The parsed project (dbt's ``Manifest``) of the last call in this process; None before any."""
    return _LAST_USED[0] if _LAST_USED else None


def parsed_nodes(unique_ids: Sequence[str]) -> dict[str, dict]:
    """The nodes ``unique_ids`` as dicts (the shape of ``manifest.json``'s ``nodes``), from the
    manifest of the last call (empty before any)."""
    manifest = last_manifest()
    if manifest is None:
        return {}
    return {uid: manifest.nodes[uid].to_dict() for uid in unique_ids if uid in manifest.nodes}


def parsed_project(args: Sequence[str] = (), *, env: dict[str, str] | None = None):
    """The parsed project (dbt's ``Manifest``) for the options ``args`` (``--target``, ``--vars``):
    this process's cached one, else a ``dbt parse`` of it for the warehouse ``BIASWH_HOME`` names."""
    wait_for_dbt()
    parse_args = parse_options(args)
    manifest = _MANIFESTS.get((project_digest(), *parse_args))
    if manifest is not None:
        return manifest
    outcome = invoke_dbt(["parse", *parse_args], env=env)
    if not outcome.success:
        raise RuntimeError(f"dbt parse failed: {outcome.exception}")
    return outcome.result


def load_dbt(parse_args: Sequence[str] = ()) -> bool:
    """Import dbt and load the kept parsed project for ``parse_args`` (none: the profile's default
    target) into this process's cache, keyed as every call keys it: a project edited meanwhile is
    looked up under its own key and parsed by the call; a failure here costs the call nothing but time.
    True when the parsed project is now in this process."""
    try:
        import dbt.adapters.duckdb  # noqa: F401 - dbt's adapter factory imports it on the first call
        import dbt.cli.main  # noqa: F401

        key = (project_digest(), *parse_args)
        if key not in _MANIFESTS:
            manifest = load_parsed(key[0], list(parse_args))
            if manifest is not None:
                _keep(key, manifest)
        return key in _MANIFESTS
    except Exception:  # noqa: BLE001 - the call that needs dbt loads it and says what is wrong
        return False


def start_dbt_in_background(parse_args: Sequence[str] = ()) -> None:
    """:func:`load_dbt` in a background thread (:mod:`biaswh.warehouse.dbt_build.warm_start`)."""
    start_in_background(lambda: load_dbt(parse_args))


def forget_parsed_projects() -> None:
    """Drop the cached manifests (the next call parses again)."""
    _MANIFESTS.clear()
