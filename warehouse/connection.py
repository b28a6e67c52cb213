"""Open the warehouse's DuckDB file, turning lock conflicts into a clear message."""

from __future__ import annotations

from contextlib import contextmanager
from importlib import resources
from typing import Iterator

import duckdb

from warehouse.errors import UserError, WarehouseBusyError
from warehouse.layout import check_layout, record_layout
from warehouse.settings import warehouse_paths


def _raw_schema_ddl() -> str:
    """All DDL files in ``warehouse/raw_schema/``, in name order (00_core.sql first).

    Each study's ingest adds its own file, so no two sources edit the same DDL.
    """
    folder = resources.files("warehouse").joinpath("raw_schema")
    files = sorted((f for f in folder.iterdir() if f.name.endswith(".sql")), key=lambda f: f.name)
    return "\n".join(f.read_text(encoding="utf-8") for f in files)


def connect(*, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """Open the warehouse; create the folder and the raw schema when writing.

    Raises
    ------
    WarehouseBusyError
        When another process holds the file (DuckDB allows one writing process).
    """
    paths = warehouse_paths()
    if read_only and not paths.duckdb_file.exists():
        raise UserError(
            f"no warehouse at {paths.duckdb_file}: run an ingest or `make demo` first"
        )
    paths.home.mkdir(parents=True, exist_ok=True)
    try:
        con = duckdb.connect(str(paths.duckdb_file), read_only=read_only)
    except duckdb.IOException as exc:
        if "lock" in str(exc).lower():
            raise WarehouseBusyError(
                f"warehouse is busy: another process is using {paths.duckdb_file}; "
                "wait for it to finish and try again"
            ) from None
        raise
    try:
        stored = check_layout(con, paths.duckdb_file)
    except UserError:
        con.close()
        raise
    if not read_only:
        con.execute(_raw_schema_ddl())
        if stored is None:
            record_layout(con)
    return con


@contextmanager
def open_warehouse(*, read_only: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
    """Context-managed :func:`connect` that always closes the file (releasing the lock)."""
    con = connect(read_only=read_only)
    try:
        yield con
    finally:
        con.close()
