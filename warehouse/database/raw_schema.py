"""The raw schema on a writing open: its DDL runs only when the raw tables are not already what
it leaves.

Every writing open used to run the whole DDL (``create ... if not exists``, ``add column if not
exists``, the pending ``drop not null`` migrations) and looked the nullable columns up first: 19 to
28 ms of CPU of a 61 to 76 ms open, thirteen times in a study run, nearly always changing nothing. The
DDL is idempotent: the raw tables it leaves are a state it leaves unchanged when run again. So a
writing open reads the raw tables' definitions from DuckDB's catalog (``duckdb_tables()``, in the
open's one catalog query, :mod:`biaswh.warehouse.database.open_catalog`: each table's ``CREATE``
statement as DuckDB holds it, with every column, its type, ``NOT NULL`` and key) and skips the
DDL when this process saw this same DDL leave exactly those definitions. A table dropped, a
column added, removed or changed, or a constraint set by anyone between two opens makes the
definitions differ, and the DDL runs as it always did.
"""

from __future__ import annotations

import hashlib
import re

import duckdb

from biaswh.warehouse.database.open_catalog import raw_tables_sql
from biaswh.warehouse.settings.plugin_roots import raw_ddl_files

_RAW_TABLES = (
    "select table_name, sql from duckdb_tables() where database_name = current_database() and schema_name = 'raw'"
)

# (sha256 of the DDL, sha256 of the raw tables' definitions right after it ran): the states this
# process saw that DDL leave, which running it again leaves as they are.
_SETTLED: set[tuple[str, str]] = set()


def raw_schema_ddl() -> str:
    """The raw schema's DDL: the kernel's (``warehouse/relations/raw_schema/``), then each family's own files
    (:func:`biaswh.warehouse.settings.plugin_roots.raw_ddl_files`), so no two families edit the same DDL."""
    return "\n".join(path.read_text(encoding="utf-8") for path in raw_ddl_files())


_DROP_NOT_NULL = re.compile(r"(?im)^alter table (\w+)\.(\w+) alter column (\w+) drop not null;[^\n]*$")


def _pending_ddl(con: duckdb.DuckDBPyConnection, ddl: str) -> str:
    """``ddl`` without the ``drop not null`` migrations already done: DuckDB rewrites the table's
    catalog entry each time one runs, so every writing command changed the file's bytes, even one
    refused before any work (the other statements are ``if not exists``: no change when done)."""
    nullable = {
        (schema, table, column)
        for schema, table, column in con.execute(
            "select table_schema, table_name, column_name from information_schema.columns where is_nullable = 'YES'"
        ).fetchall()
    }
    return _DROP_NOT_NULL.sub(lambda m: "" if m.groups() in nullable else m.group(0), ddl)


def _digest(raw_tables: str) -> str:
    return hashlib.sha256(raw_tables.encode()).hexdigest()


def _raw_tables(con: duckdb.DuckDBPyConnection) -> str:
    """Every raw table's definition as DuckDB's catalog holds it now
    (:func:`biaswh.warehouse.database.open_catalog.raw_tables_sql`)."""
    return raw_tables_sql(con.execute(_RAW_TABLES).fetchall())


def ensure_raw_schema(con: duckdb.DuckDBPyConnection, *, raw_tables: str | None = None) -> bool:
    """Create or migrate the raw schema unless its tables are what the DDL already left them;
    return whether the DDL ran. ``raw_tables``: their definitions as this open just read them
    (:func:`biaswh.warehouse.database.open_catalog.read_catalog`; None: read here)."""
    ddl = raw_schema_ddl()
    ddl_digest = hashlib.sha256(ddl.encode()).hexdigest()
    if (ddl_digest, _digest(_raw_tables(con) if raw_tables is None else raw_tables)) in _SETTLED:
        return False
    con.execute(_pending_ddl(con, ddl))
    _SETTLED.add((ddl_digest, _digest(_raw_tables(con))))
    return True
