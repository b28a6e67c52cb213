"""Open the warehouse's DuckDB file, turning lock conflicts into a clear message."""

from __future__ import annotations

import re
import sys
import time
from contextlib import contextmanager
from importlib import resources
from typing import Iterator, Sequence

import duckdb

from warehouse import command_lock
from warehouse.errors import UserError, WarehouseBusyError
from warehouse.layout import check_layout, record_layout
from warehouse.runs import mark_interrupted_runs
from warehouse.settings import duckdb_memory_limit, warehouse_paths

# DuckDB's own controls for untrusted SQL (``biaswh sql``): no file system access beyond the
# warehouse file itself (so no COPY ... TO, EXPORT DATABASE, ATTACH, read_csv of other files,
# INSTALL), no extension loading, and (set after the search path) lock_configuration.
SANDBOX_CONFIG = {
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
    "allow_unsigned_extensions": False,
}
_LOCK_HOLDER = re.compile(r"\(PID (\d+)\)")


def _raw_schema_ddl() -> str:
    """All DDL files in ``warehouse/raw_schema/``, in name order (00_core.sql first).

    Each study's ingest adds its own file, so no two sources edit the same DDL.
    """
    folder = resources.files("warehouse").joinpath("raw_schema")
    files = sorted((f for f in folder.iterdir() if f.name.endswith(".sql")), key=lambda f: f.name)
    return "\n".join(f.read_text(encoding="utf-8") for f in files)


def _open_file(path, *, read_only: bool, config: dict | None = None) -> duckdb.DuckDBPyConnection:
    try:
        return duckdb.connect(str(path), read_only=read_only, config=config or {})
    except duckdb.IOException as exc:
        text = str(exc)
        if "lock" in text.lower():
            holder = _LOCK_HOLDER.search(text)
            by = f"process {holder.group(1)} is using" if holder else "another process is using"
            raise WarehouseBusyError(f"warehouse is busy: {by} {path}; wait for it to finish and try again") from None
        if "not a valid DuckDB database file" in text or "Is a directory" in text:
            raise UserError(
                f"{path} is not a DuckDB database file (damaged or overwritten): move it aside and re-run the"
                " ingests, or point BIASWH_HOME at another folder"
            ) from None
        raise


def _open_waiting(path, *, read_only: bool) -> duckdb.DuckDBPyConnection:
    """Open the file (with the memory limit); a writing command that opened it before waits for a
    reader to finish (:mod:`warehouse.command_lock`)."""
    config = {"memory_limit": duckdb_memory_limit()}
    if not command_lock.may_wait():
        con = _open_file(path, read_only=read_only, config=config)
        command_lock.note_opened()
        return con
    deadline = time.monotonic() + command_lock.busy_timeout()
    said = False
    while True:
        try:
            return _open_file(path, read_only=read_only, config=config)
        except WarehouseBusyError as busy:
            if time.monotonic() >= deadline:
                raise
            if not said:
                print(
                    f"biaswh: {str(busy).split(';')[0]}; waiting up to {command_lock.busy_timeout():.0f} s"
                    f" ({command_lock.TIMEOUT_VARIABLE})",
                    file=sys.stdout,
                    flush=True,
                )
                said = True
            time.sleep(0.2)


def connect(*, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """Open the warehouse; when writing, create the folder and the raw schema, and mark the runs
    whose process died as ``interrupted`` (:func:`warehouse.runs.mark_interrupted_runs`).

    A writing command (one holding :func:`warehouse.command_lock.exclusive_command`) that has
    opened the warehouse before waits for another holder (a reader that took the file between
    two stages), up to ``BIASWH_BUSY_TIMEOUT``.

    Raises
    ------
    WarehouseBusyError
        When another process holds the file (DuckDB allows one writing process).
    """
    paths = warehouse_paths()
    if read_only and not paths.duckdb_file.exists():
        raise UserError(f"no warehouse at {paths.duckdb_file}: run an ingest or `make demo` first")
    paths.home.mkdir(parents=True, exist_ok=True)
    con = _open_waiting(paths.duckdb_file, read_only=read_only)
    try:
        stored = check_layout(con, paths.duckdb_file)
    except UserError:
        con.close()
        raise
    if not read_only:
        con.execute(_raw_schema_ddl())
        if stored is None:
            record_layout(con)
        mark_interrupted_runs(con)
    return con


@contextmanager
def open_warehouse(*, read_only: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
    """Context-managed :func:`connect` that always closes the file (releasing the lock)."""
    con = connect(read_only=read_only)
    try:
        yield con
    finally:
        con.close()


@contextmanager
def open_sandbox(search_path: Sequence[str] = ()) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection for ad hoc SQL that cannot touch anything but the warehouse.

    DuckDB itself refuses, on this connection, writes to the warehouse, any other file access
    (``COPY ... TO``, ``EXPORT DATABASE``, ``ATTACH``, reading files), installing or loading
    extensions, and changing settings (``lock_configuration``). ``search_path`` lists the schemas
    unqualified names resolve through; those that do not exist are skipped.
    """
    paths = warehouse_paths()
    if not paths.duckdb_file.exists():
        raise UserError(f"no warehouse at {paths.duckdb_file}: run an ingest or `make demo` first")
    con = _open_file(
        paths.duckdb_file, read_only=True, config={**SANDBOX_CONFIG, "memory_limit": duckdb_memory_limit()}
    )
    try:
        existing = {r[0] for r in con.execute("select schema_name from information_schema.schemata").fetchall()}
        path = ",".join(s for s in search_path if s in existing)
        if path:
            con.execute(f"set search_path = '{path}'")
        con.execute("set lock_configuration = true")
        yield con
    finally:
        con.close()
