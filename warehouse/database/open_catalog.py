"""What an open of the warehouse reads of DuckDB's catalog, in one query.

Each open checks the file's layout (are ``raw.warehouse_layout`` and ``raw.runs`` there), and a
writing open also whether the raw tables are what the raw schema's DDL left, whether a renamed
mart's old name is still there, and whether a view names the lake by its absolute path. Each check
asked the catalog itself: five queries (two through ``information_schema``), 12 ms of a 47 ms
open and close (medians, a warm squad_dialect warehouse of 59 tables and 29 views). This one
query answers them all in about 5 ms on a new connection, 2 ms of it DuckDB writing out the
views' SQL, which only a writing open asks for. Every open still reads the catalog afresh:
another process may have changed the file since this one last opened it.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

_TABLES = (
    "select schema_name, table_name, if(schema_name = 'raw', sql, null), false from duckdb_tables()"
    " where database_name = current_database()"
)
_VIEWS = (
    "select schema_name, view_name, null, {naming} from duckdb_views()"
    " where database_name = current_database() and not internal"
)


@dataclass(frozen=True)
class Catalog:
    """The tables and views of the warehouse file, as one open found them."""

    relations: frozenset[tuple[str, str]]  # (schema, name) of every table and view
    raw_tables: str  # each raw table's CREATE statement as DuckDB holds it, by name, one a line
    views_naming: int  # views whose SQL contains the text asked for (none asked: 0)


def raw_tables_sql(rows) -> str:
    """The raw tables' definitions from ``(name, sql)`` rows: by name, one a line."""
    return "\n".join(sql for _, sql in sorted(rows))


def read_catalog(con: duckdb.DuckDBPyConnection, *, views_containing: str | None = None) -> Catalog:
    """The file's tables and views; with ``views_containing``, how many views' SQL contains it."""
    if views_containing is None:
        rows = con.execute(f"{_TABLES} union all {_VIEWS.format(naming='false')}").fetchall()
    else:
        rows = con.execute(
            f"{_TABLES} union all {_VIEWS.format(naming='contains(sql, ?)')}", [views_containing]
        ).fetchall()
    return Catalog(
        relations=frozenset((schema, name) for schema, name, _, _ in rows),
        raw_tables=raw_tables_sql((name, sql) for schema, name, sql, _ in rows if schema == "raw" and sql is not None),
        views_naming=sum(1 for *_, named in rows if named),
    )
