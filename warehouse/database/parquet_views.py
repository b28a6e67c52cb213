"""Views of the warehouse over Parquet outside its file (a Spark build's tables), and where each relation lives.

A study built on Spark (``--target spark``, :mod:`biaswh.warehouse.spark.marts`) leaves each
table Spark built where Spark wrote it, and DuckDB holds a view over its Parquet folder. The
sandboxed connection of ``biaswh sql`` allows reading exactly those folders
(:func:`parquet_view_folders`); ``biaswh where`` lists every relation with its home
(:func:`relation_homes`).

A view over Parquet inside the warehouse folder names it ``~/<path below the folder>``
(:func:`lake_path`), and every connection of ours, and dbt's, sets DuckDB's ``home_directory``
to the warehouse folder (:func:`home_directory_config`): DuckDB expands ``~`` with that setting
when the view is read, so a warehouse folder moved or copied elsewhere reads its own lake. A
plain relative path would not do: DuckDB resolves it against the process's working directory
first. Parquet outside the folder (another root, ``s3://``) stays named as it is.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import duckdb

from biaswh.warehouse.database.transactions import transaction
from biaswh.warehouse.relations.column_docs import sql_string

# The first path a view's read_parquet names (a glob under the table's folder).
_READ_PARQUET = re.compile(r"read_parquet\(\[?'((?:[^']|'')+)'")
# The glob tail below a table's folder: its run partitions' files, or its own files.
_FILES_GLOB = re.compile(r"/(?:run_id=\*/)?\*\.parquet$")
SCHEMAS = ("raw", "staging", "intermediate", "marts", "analysis", "main")
# How a view names a path below the warehouse folder: DuckDB replaces "~" by its home_directory.
IN_THE_FOLDER = "~"


def home_directory_config(home: Path) -> dict[str, str]:
    """The DuckDB setting under which this warehouse's views read the lake in its own folder ``home``."""
    return {"home_directory": str(home)}


def connection_home(con: duckdb.DuckDBPyConnection) -> Path | None:
    """The warehouse folder ``con`` reads ``~/`` paths from (its ``home_directory``), or None when unset."""
    (value,) = con.execute("select current_setting('home_directory')").fetchone()
    return Path(value) if value else None


def lake_path(location: str, home: Path | None) -> str:
    """How a view names ``location``: ``~/<path>`` when it lies in the warehouse folder ``home`` (it
    then moves with the folder), else as given (another root, object storage, or no ``home``)."""
    if home is None or "://" in location:
        return location
    below = Path(os.path.realpath(location))
    folder = Path(os.path.realpath(home))
    if not below.is_relative_to(folder):
        return location
    relative = below.relative_to(folder).as_posix()
    return IN_THE_FOLDER if relative == "." else f"{IN_THE_FOLDER}/{relative}"


def _parquet_folder(view_sql: str, home: Path | None) -> str | None:
    """The table folder a view reads (``~`` expanded with ``home``), or None for a view over DuckDB relations."""
    found = _READ_PARQUET.search(view_sql or "")
    if found is None:
        return None
    folder = _FILES_GLOB.sub("", found.group(1).replace("''", "'"))
    if folder == IN_THE_FOLDER or folder.startswith(f"{IN_THE_FOLDER}/"):
        base = str(home) if home is not None else os.path.expanduser(IN_THE_FOLDER)
        folder = base.rstrip("/") + folder[len(IN_THE_FOLDER) :]
    return folder


def _view_sql(con: duckdb.DuckDBPyConnection) -> list[str]:
    rows = con.execute("select sql from duckdb_views() where not internal and sql like '%read_parquet(%'").fetchall()
    return [sql for (sql,) in rows]


def parquet_view_folders(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every folder a view of this warehouse reads Parquet from, as this connection reads it, sorted."""
    home = connection_home(con)
    return sorted({folder for sql in _view_sql(con) if (folder := _parquet_folder(sql, home))})


def folders_named_from_home(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The folders views name ``~/...`` (in the warehouse folder), as they name them, sorted."""
    named = {_parquet_folder(sql, Path(IN_THE_FOLDER)) for sql in _view_sql(con)}
    return sorted(f for f in named if f and (f == IN_THE_FOLDER or f.startswith(f"{IN_THE_FOLDER}/")))


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
    warehouse_folder = connection_home(con)
    for schema, name, kind, sql in rows:
        if schema not in SCHEMAS:
            continue
        folder = _parquet_folder(sql, warehouse_folder) if kind == "view" else None
        home = folder or ("duckdb view" if kind == "view" else "duckdb")
        homes.append((schema, name, kind, home))
    return sorted(homes, key=lambda row: (SCHEMAS.index(row[0]), row[1]))


def absolute_lake_name(home: Path) -> str:
    """How a view written before views named the folder ``~/`` begins to read Parquet in ``home``."""
    return "read_parquet('" + os.path.realpath(home).rstrip("/").replace("'", "''") + "/"


def name_lake_from_home(con: duckdb.DuckDBPyConnection) -> int:
    """Rewrite the views that name Parquet in the warehouse folder by its absolute path (written
    before views named it ``~/``) to name it ``~/``, comments kept, in one transaction; how many.

    Run when the warehouse is opened for writing in its folder, so a warehouse built earlier can
    then be moved. A folder already moved still names the old place: its next Spark build
    publishes its views again.
    """
    home = connection_home(con)
    if home is None:
        return 0
    absolute = absolute_lake_name(home)
    rows = con.execute(
        "select schema_name, view_name, sql, comment from duckdb_views() where not internal and contains(sql, ?)",
        [absolute],
    ).fetchall()
    if not rows:
        return 0
    with transaction(con):
        for schema, name, sql, comment in rows:
            columns = con.execute(
                "select column_name, comment from duckdb_columns() where schema_name = ? and table_name = ?"
                " and comment is not null",
                [schema, name],
            ).fetchall()
            renamed = sql.replace(absolute, f"read_parquet('{IN_THE_FOLDER}/")
            con.execute(renamed.replace("CREATE VIEW", "CREATE OR REPLACE VIEW", 1))
            target = f'"{schema}"."{name}"'
            if comment:
                con.execute(f"comment on view {target} is {sql_string(comment)}")
            for column, text in columns:
                con.execute(f'comment on column {target}."{column}" is {sql_string(text)}')
    return len(rows)
