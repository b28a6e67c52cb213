"""Open the warehouse's DuckDB file, turning lock conflicts into a clear message."""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import duckdb

from biaswh.warehouse.database import command_lock
from biaswh.warehouse.database.busy import BUSY_ADVICE, busy_error
from biaswh.warehouse.database.open_catalog import read_catalog
from biaswh.warehouse.database.parquet_views import absolute_lake_name, home_directory_config, name_lake_from_home
from biaswh.warehouse.database.raw_schema import ensure_raw_schema
from biaswh.warehouse.errors import UserError, WarehouseBusyError
from biaswh.warehouse.relations.layout import check_layout, record_layout
from biaswh.warehouse.relations.renamed_marts import carry_over_renamed_marts
from biaswh.warehouse.runs.pending_failures import apply_pending_failures
from biaswh.warehouse.runs.registry import mark_interrupted_runs
from biaswh.warehouse.settings.home import duckdb_memory_limit, warehouse_paths


def open_file(path, *, read_only: bool, config: dict | None = None, shown=None) -> duckdb.DuckDBPyConnection:
    """``duckdb.connect`` with DuckDB's lock conflict and a damaged file as one-line errors.

    ``shown``: the path the messages name (default ``path``).

    Raises
    ------
    WarehouseBusyError
        When another process holds the file, naming it (:func:`biaswh.warehouse.database.busy.busy_error`).
    UserError
        When the file is not a DuckDB database.
    """
    shown = shown or path
    try:
        con = duckdb.connect(str(path), read_only=read_only, config=config or {})
    except duckdb.IOException as exc:
        text = str(exc)
        if "lock" in text.lower():
            raise busy_error(text, shown) from None
        if "not a valid DuckDB database file" in text or "Is a directory" in text:
            raise UserError(
                f"{shown} is not a DuckDB database file (damaged or overwritten): move it aside and re-run the"
                " ingests, or point BIASWH_HOME at another folder"
            ) from None
        raise
    quiet(con)
    return con


def quiet(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """``con`` without DuckDB's progress bar, which a query slower than 2 s otherwise prints to
    standard output (into a `biaswh sql` result piped to a file, or a test's captured output).

    In a Jupyter kernel without ipywidgets DuckDB refuses to change the setting at all (it would
    draw its bar as a widget there): the connection is then left as DuckDB made it."""
    try:
        con.execute("set enable_progress_bar = false")
    except duckdb.InvalidInputException as error:
        if "ipywidgets" not in str(error):
            raise
    return con


def warehouse_config(path) -> dict:
    """DuckDB's settings for every connection to the warehouse file ``path`` (one process's
    connections to one file must agree on them): the memory limit, and ``home_directory`` the
    file's folder, so views over the lake in it read it there."""
    return {"memory_limit": duckdb_memory_limit(), **home_directory_config(Path(path).parent)}


def _open_waiting(path, *, read_only: bool, wait: bool = True) -> duckdb.DuckDBPyConnection:
    """Open the file (with the memory limit); a writing command that opened it before waits for a
    reader to finish (:mod:`biaswh.warehouse.database.command_lock`), unless ``wait`` is false.
    DuckDB's ``home_directory`` is the file's folder: views over the lake in it read it there."""
    config = warehouse_config(path)
    if not (wait and command_lock.may_wait()):
        con = open_file(path, read_only=read_only, config=config)
        command_lock.note_opened()
        return con
    deadline = time.monotonic() + command_lock.busy_timeout()
    said = False
    while True:
        try:
            return open_file(path, read_only=read_only, config=config)
        except WarehouseBusyError as busy:
            if time.monotonic() >= deadline:
                raise
            if not said:
                print(
                    f"biaswh: {str(busy).removesuffix(BUSY_ADVICE)}; waiting up to {command_lock.busy_timeout():.0f} s"
                    f" ({command_lock.TIMEOUT_VARIABLE})",
                    file=sys.stdout,
                    flush=True,
                )
                said = True
            time.sleep(0.2)


def connect(*, read_only: bool = False, wait: bool = True) -> duckdb.DuckDBPyConnection:
    """Open the warehouse; when writing, create the folder and the raw schema, record the run
    failures that could not be written when they happened
    (:func:`biaswh.warehouse.runs.pending_failures.apply_pending_failures`), and mark the runs whose process
    died as ``interrupted`` (:func:`biaswh.warehouse.runs.registry.mark_interrupted_runs`), and move renamed
    marts' rows to their new names (:func:`biaswh.warehouse.relations.renamed_marts.carry_over_renamed_marts`).

    A writing command (one holding :func:`biaswh.warehouse.database.command_lock.exclusive_command`) that has
    opened the warehouse before waits for another holder (a reader that took the file between
    two stages), up to ``BIASWH_BUSY_TIMEOUT``; ``wait=False`` never waits.

    Raises
    ------
    WarehouseBusyError
        When another process holds the file (DuckDB allows one writing process).
    """
    paths = warehouse_paths()
    if read_only and not paths.duckdb_file.exists():
        raise UserError(f"no warehouse at {paths.duckdb_file}: run an ingest or `make demo` first")
    paths.home.mkdir(parents=True, exist_ok=True)
    con = _open_waiting(paths.duckdb_file, read_only=read_only, wait=wait)
    try:
        # One catalog query for every check below (they each asked it: 12 ms of a 47 ms open and close).
        catalog = read_catalog(
            con, views_containing=None if read_only else absolute_lake_name(paths.duckdb_file.parent)
        )
        stored = check_layout(con, paths.duckdb_file, catalog.relations)
    except UserError:
        con.close()
        raise
    if not read_only:
        ensure_raw_schema(con, raw_tables=catalog.raw_tables)  # the DDL touches raw only: the rest still holds
        if stored is None:
            record_layout(con)
        carry_over_renamed_marts(con, catalog.relations)  # before any dbt build sees a mart's old name
        if catalog.views_naming:
            name_lake_from_home(con)  # views written with absolute paths: the folder can then move
        apply_pending_failures(con)  # before the next line would call those runs interrupted
        mark_interrupted_runs(con)
    return con


@contextmanager
def open_warehouse(*, read_only: bool = False, wait: bool = True) -> Iterator[duckdb.DuckDBPyConnection]:
    """Context-managed :func:`connect` that always closes the file (releasing the lock)."""
    con = connect(read_only=read_only, wait=wait)
    try:
        yield con
    finally:
        close_stopping_queries(con)


def close_stopping_queries(con: duckdb.DuckDBPyConnection) -> None:
    """Close ``con``, first stopping what it still runs: a query stopped by Ctrl-C goes on in DuckDB's
    worker threads, and ``close`` waited for it to finish (minutes, after the user had stopped it)."""
    con.interrupt()  # nothing to stop: nothing happens
    con.close()


def refuse_if_busy() -> None:
    """End a writing command at its start when another process holds the warehouse file.

    A study spends seconds loading its plugins before its first open; a reader already there
    should be named at once, not after that. Opening for writing (then closing) is the test
    DuckDB itself applies; it counts as the command's first open, so a reader that arrives
    later is waited for (:func:`biaswh.warehouse.database.command_lock.may_wait`).

    Raises
    ------
    WarehouseBusyError
        Naming the holder.
    """
    path = warehouse_paths().duckdb_file
    if path.exists():
        open_file(path, read_only=False, config=warehouse_config(path)).close()
        command_lock.note_opened()
