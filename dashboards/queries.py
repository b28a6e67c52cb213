"""What every page needs from the warehouse and for its numbers: one copy of each helper.

Pages read marts and ``analysis.*`` only; a relation that does not exist yet (a study
type never run in this warehouse) is asked about with :func:`relation_exists` first.
"""

from __future__ import annotations

import math

import duckdb


def relation_exists(con: duckdb.DuckDBPyConnection, schema: str, name: str) -> bool:
    """Whether ``schema.name`` exists (a table or a view)."""
    return con.execute("select count(*) from information_schema.tables where table_schema = ? and table_name = ?",
                       [schema, name]).fetchone()[0] > 0


def query_rows(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> tuple[list[str], list[list]]:
    """Column names and rows (as lists) of one query."""
    cursor = con.execute(sql, params or [])
    return [d[0] for d in cursor.description], [list(r) for r in cursor.fetchall()]


def query_dicts(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> list[dict]:
    """The rows of one query as dicts keyed by column name."""
    cursor = con.execute(sql, params or [])
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, r)) for r in cursor.fetchall()]


def number(value, digits: int = 3, *, missing: str = "–") -> str:
    """The house number format: ``digits`` significant digits; ``missing`` for None and NaN."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return missing
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)
