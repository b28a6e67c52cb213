"""Views of the warehouse over Parquet outside its file (a Spark build's tables), and where each relation lives.

A study built on Spark (``--target spark``, :mod:`biaswh.warehouse.spark.marts`) leaves each
table Spark built where Spark wrote it, and DuckDB holds a view over its Parquet folder. The
sandboxed connection of ``biaswh sql`` allows reading exactly those folders
(:func:`parquet_view_folders`); ``biaswh where`` lists every relation with its home
(:func:`relation_homes`).
"""

from __future__ import annotations

import re

import duckdb

# The first path a view's read_parquet names (a glob under the table's folder).
_READ_PARQUET = re.compile(r"read_parquet\(\[?'((?:[^']|'')+)'")
# The glob tail below a table's folder: its run partitions' files, or its own files.
_FILES_GLOB = re.compile(r"/(?:run_id=\*/)?\*\.parquet$")
SCHEMAS = ("raw", "staging", "intermediate", "marts", "analysis", "main")


def _parquet_folder(view_sql: str) -> str | None:
    """The table folder a view reads, or None for a view over DuckDB relations."""
    found = _READ_PARQUET.search(view_sql or "")
    if found is None:
        return None
    return _FILES_GLOB.sub("", found.group(1).replace("''", "'"))


def parquet_view_folders(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every folder a view of this warehouse reads Parquet from, sorted."""
    rows = con.execute("select sql from duckdb_views() where not internal and sql like '%read_parquet(%'").fetchall()
    return sorted({folder for (sql,) in rows if (folder := _parquet_folder(sql))})


def relation_homes(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, str, str]]:
    """(schema, relation, kind, home) of every relation in the warehouse's schemas, in schema order.

    ``kind``: ``table`` or ``view``; ``home``: ``duckdb`` (rows in the warehouse file), ``duckdb
    view`` (computed from other relations when read), or the Parquet folder a view reads.
    """
    rows = con.execute(
        "select schema_name, table_name, 'table', null from duckdb_tables() where not internal"
        " union all select schema_name, view_name, 'view', sql from duckdb_views() where not internal"
    ).fetchall()
    homes = []
    for schema, name, kind, sql in rows:
        if schema not in SCHEMAS:
            continue
        folder = _parquet_folder(sql) if kind == "view" else None
        home = folder or ("duckdb view" if kind == "view" else "duckdb")
        homes.append((schema, name, kind, home))
    return sorted(homes, key=lambda row: (SCHEMAS.index(row[0]), row[1]))
