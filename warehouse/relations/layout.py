"""The warehouse layout version: what shape of raw tables and marts a warehouse was written with.

Layout 1 (before run-scoped results) rebuilt marts from the latest source versions and
global dbt vars; layout 2 pins each run's inputs (``raw.run_inputs``), records its
parameters (``raw.run_parameters``) and keeps run-keyed marts incremental. Mixing the two
in one file would silently mix both meanings, so an older warehouse is refused with what
to do instead.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Collection

import duckdb

from biaswh.warehouse.errors import UserError

LAYOUT_VERSION = 2


def _table_exists(con: duckdb.DuckDBPyConnection, schema: str, table: str) -> bool:
    return (
        con.execute(
            "select count(*) from information_schema.tables where table_schema = ? and table_name = ?", [schema, table]
        ).fetchone()[0]
        > 0
    )


def stored_layout(con: duckdb.DuckDBPyConnection, relations: Collection[tuple[str, str]] | None = None) -> int | None:
    """The layout the file was written with: None for a new file, 1 for one from before layouts.

    ``relations``: the file's (schema, name) pairs as the open just read them
    (:func:`biaswh.warehouse.database.open_catalog.read_catalog`; None: looked up here)."""

    def exists(table: str) -> bool:
        return ("raw", table) in relations if relations is not None else _table_exists(con, "raw", table)

    if exists("warehouse_layout"):
        row = con.execute("select max(layout_version) from raw.warehouse_layout").fetchone()
        if row[0] is not None:
            return int(row[0])
    return 1 if exists("runs") else None


def check_layout(
    con: duckdb.DuckDBPyConnection, path, relations: Collection[tuple[str, str]] | None = None
) -> int | None:
    """Refuse a warehouse written with another layout; return the stored layout (None when new).
    ``relations``: as for :func:`stored_layout`."""
    stored = stored_layout(con, relations)
    if stored is not None and stored != LAYOUT_VERSION:
        newer = stored > LAYOUT_VERSION
        raise UserError(
            f"{path} was written with warehouse layout {stored}; this code uses layout {LAYOUT_VERSION}. "
            + (
                "Upgrade the code (git pull) to read it."
                if newer
                else "Its runs cannot be read as run-scoped results: point BIASWH_HOME at a new folder and re-run "
                "the studies (the old file stays readable with the code it was written with)."
            )
        )
    return stored


def record_layout(con: duckdb.DuckDBPyConnection) -> None:
    """Stamp a new warehouse with the current layout (after its raw schema was created)."""
    if con.execute("select count(*) from raw.warehouse_layout").fetchone()[0] == 0:
        con.execute(
            "insert into raw.warehouse_layout values (?, ?)",
            [LAYOUT_VERSION, datetime.now(timezone.utc).replace(tzinfo=None)],
        )
