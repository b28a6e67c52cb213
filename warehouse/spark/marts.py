"""A study's dbt builds on Spark (``biaswh run STUDY --target spark``), their tables read in place by DuckDB.

One build step on Spark, in order:

1. the runs' ``raw.*`` rows go to Parquet, one folder per run, registered as Spark tables
   (:mod:`biaswh.warehouse.spark.raw_export`);
2. ``dbt build --target spark`` builds every selected model that builds on Spark (the
   DuckDB-only ones are disabled there) with its data tests;
3. each table Spark built becomes, in ONE DuckDB transaction, a view of the same schema and
   name over its Parquet (:func:`publish_spark_tables`): no row is copied. Parquet in the
   warehouse folder is named ``~/...`` (DuckDB's ``home_directory`` is that folder), so the
   views follow the folder when it is moved or copied. The view casts each
   column to the type its yml declares (``data_type``: DuckDB's type, what the DuckDB build
   gives) and carries the yml's descriptions as comments, so ``biaswh sql``, the contract
   views and plain ``duckdb`` users (``home_directory`` set to the folder) see the same
   relation as on the default target. A
   run-keyed view leaves out withdrawn runs (failed, interrupted, and their sub-runs), whose
   rows the DuckDB path deletes, and the runs of other warehouses. A warehouse whose DuckDB
   already holds the table (built there on the default target) keeps it, and gets this
   build's runs copied in;
4. DuckDB builds the rest of the selection (views, DuckDB-only models), the published models
   excluded, so DuckDB-only marts read the rows Spark computed.

Spark's insert_overwrite replaces only the partitions of the runs a build computes, so a
finished run's rows never change; ``biaswh where`` shows where each relation lives.
"""

from __future__ import annotations

import os
from typing import Sequence

import duckdb

from biaswh.warehouse.database.connection import open_warehouse
from biaswh.warehouse.database.parquet_views import connection_home, lake_path
from biaswh.warehouse.database.transactions import transaction
from biaswh.warehouse.dbt_build.runner import BuildSummary
from biaswh.warehouse.relations.column_docs import sql_string
from biaswh.warehouse.runs.sub_runs import SUB_RUN_KINDS, withdrawn_sub_runs_sql
from biaswh.warehouse.spark.raw_export import export_raw, spark_folder
from biaswh.warehouse.spark.raw_registration import register_raw_tables
from biaswh.warehouse.spark.target import SparkTable, build_on_spark

# The Spark tables' root when no local SparkSession can say (a Thrift server's warehouse dir).
WAREHOUSE_LOCATION_VARIABLE = "BIASWH_SPARK_WAREHOUSE_LOCATION"


def table_location(table: SparkTable) -> str:
    """Where a Spark table's Parquet lives: the metastore's answer, else the local default.

    In session mode the active SparkSession knows (its warehouse folder is fixed when the
    JVM starts, so it wins over ``$BIASWH_HOME``). ``BIASWH_SPARK_WAREHOUSE_LOCATION`` (a Thrift
    server's ``spark.sql.warehouse.dir``), when set, names the root outright; with neither, the
    tables are under ``$BIASWH_HOME/spark/warehouse``.
    """
    if os.environ.get(WAREHOUSE_LOCATION_VARIABLE):  # set on purpose: it names the tables' root
        root = os.environ[WAREHOUSE_LOCATION_VARIABLE]
        return f"{root.rstrip('/')}/{table.schema}.db/{table.name}"
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        session = None
    else:
        session = SparkSession.getActiveSession()
    if session is not None:
        try:
            rows = session.sql(f"describe table extended `{table.schema}`.`{table.name}`").collect()
        except Exception:  # noqa: BLE001  (a table this session's metastore does not hold: the default root)
            rows = []
        for row in rows:
            if row.col_name == "Location":
                location = row.data_type
                return location[len("file:") :] if location.startswith("file:") else location
    root = str(spark_folder() / "warehouse")
    return f"{root.rstrip('/')}/{table.schema}.db/{table.name}"


def _parquet_files(con: duckdb.DuckDBPyConnection, pattern: str) -> list[str]:
    return [row[0] for row in con.execute("select file from glob(?) order by 1", [pattern]).fetchall()]


def _read(files_or_pattern: list[str] | str, *, by_run: bool) -> str:
    if isinstance(files_or_pattern, str):
        listed = sql_string(files_or_pattern)
    else:
        listed = "[" + ", ".join(sql_string(file) for file in files_or_pattern) + "]"
    if not by_run:
        return f"read_parquet({listed}, union_by_name = true)"
    # run_id comes from the folder name and stays text: a run id of digits must not become a number.
    return f"read_parquet({listed}, hive_partitioning = true, hive_types = {{'run_id': VARCHAR}}, union_by_name = true)"


def _typed_columns(con: duckdb.DuckDBPyConnection, table: SparkTable, relation: str) -> str:
    """The select list over ``relation``: the yml's columns in its order, each cast to its declared
    DuckDB type (Parquet cannot say HUGEINT or JSON, Spark's integer sums and ranks differ), then
    any column the yml does not list, as Spark wrote it."""
    present = [row[0] for row in con.execute(f"describe select * from {relation}").fetchall()]
    listed = [(name, kind) for name, kind, _ in table.columns if name in present]
    names = {name for name, _ in listed}
    parts = [f'cast("{name}" as {kind}) as "{name}"' if kind else f'"{name}"' for name, kind in listed]
    parts += [f'"{name}"' for name in present if name not in names]
    return ", ".join(parts)


def _withdrawn_runs(con: duckdb.DuckDBPyConnection) -> str:
    """The runs whose rows a mart must not show (macro withdrawn_run_ids), over DuckDB's ``raw``."""
    query = "select table_name from duckdb_tables() where schema_name = 'raw'"
    raw = {name for (name,) in con.execute(query).fetchall()}
    withdrawn = "status in ('failed', 'interrupted')"
    sub_runs = {kind.table for kind in SUB_RUN_KINDS.values()} & raw
    query = f"select run_id from raw.runs where {withdrawn}"
    return query + withdrawn_sub_runs_sql(lambda name: f"raw.{name}", f"parent.{withdrawn}", tables=sub_runs)


def _comment(con: duckdb.DuckDBPyConnection, table: SparkTable, kind: str) -> None:
    target = f'"{table.schema}"."{table.name}"'
    if table.description:
        con.execute(f"comment on {kind} {target} is {sql_string(table.description)}")
    present = {
        name
        for (name,) in con.execute(
            "select column_name from duckdb_columns() where schema_name = ? and table_name = ?",
            [table.schema, table.name],
        ).fetchall()
    }
    for name, _, description in table.columns:
        if description and name in present:
            con.execute(f'comment on column {target}."{name}" is {sql_string(description)}')


def _kind(con: duckdb.DuckDBPyConnection, schema: str, name: str) -> str | None:
    """'BASE TABLE', 'VIEW' or None: what DuckDB holds under ``schema.name``."""
    query = "select table_type from information_schema.tables where table_schema = ? and table_name = ?"
    row = con.execute(query, [schema, name]).fetchone()
    return row[0] if row else None


def _copy_runs(con, table: SparkTable, location: str, run_ids: Sequence[str]) -> int | None:
    """This build's rows into a table DuckDB built before (run-keyed: these runs' rows replaced)."""
    target = f'"{table.schema}"."{table.name}"'
    by_run = table.materialized == "incremental"
    if by_run:
        files = [f for run_id in run_ids for f in _parquet_files(con, f"{location}/run_id={run_id}/*.parquet")]
    else:
        files = _parquet_files(con, f"{location}/*.parquet")
    if not files:
        return None
    relation = _read(files, by_run=by_run)
    if by_run:
        con.execute(f"delete from {target} where list_contains(?, run_id)", [list(run_ids)])
    else:
        con.execute(f"delete from {target}")
    con.execute(f"insert into {target} by name select * from {relation}")
    return con.execute(f"select count(*) from {relation}").fetchone()[0]


def _view(con, table: SparkTable, location: str) -> bool:
    """Create the view over ``location``'s Parquet; False when Spark wrote no file and the yml
    cannot type an empty view (DuckDB's build then builds the model)."""
    target = f'"{table.schema}"."{table.name}"'
    by_run = table.materialized == "incremental"
    pattern = f"{location}/run_id=*/*.parquet" if by_run else f"{location}/*.parquet"
    if _parquet_files(con, pattern):
        relation = _read(pattern, by_run=by_run)
        # This warehouse's runs only (one JVM keeps its first warehouse's Spark folder for every
        # warehouse the process opens), less the withdrawn ones.
        where = f" where run_id in (select run_id from raw.runs) and run_id not in ({_withdrawn_runs(con)})"
        where = where if by_run else ""
        select = f"select {_typed_columns(con, table, relation)} from {relation}{where}"
    elif table.columns and all(kind for _, kind, _ in table.columns):
        nulls = ", ".join(f'cast(null as {kind}) as "{name}"' for name, kind, _ in table.columns)
        select = f"select {nulls} where false"
    else:
        return False
    con.execute(f'create schema if not exists "{table.schema}"')
    con.execute(f"create or replace view {target} as {select}")
    _comment(con, table, "view")
    return True


def publish_spark_tables(con: duckdb.DuckDBPyConnection, tables: Sequence[SparkTable], run_ids: Sequence[str]) -> dict:
    """Make what Spark built readable in DuckDB, in one transaction: ``{schema.name: how}``.

    ``how`` is ``'view'`` (a view over Spark's Parquet, step 3 of this module) or the number of
    rows copied into a table DuckDB already held (``run_ids``' rows for a run-keyed one). A table
    neither published nor copied (no Parquet, no declared types) is left out.
    """
    published: dict[str, str | int] = {}
    # A view names the Parquet in the warehouse folder ~/...: it moves with the folder (parquet_views.py).
    home = connection_home(con)
    with transaction(con):
        for table in tables:
            location = lake_path(table_location(table), home)
            key = f"{table.schema}.{table.name}"
            if _kind(con, table.schema, table.name) == "BASE TABLE":
                copied = _copy_runs(con, table, location, run_ids)
                if copied is not None:
                    published[key] = copied
            elif _view(con, table, location):
                published[key] = "view"
    return published


def build_on_spark_into_duckdb(
    args: list[str], *, label: str, run_ids: Sequence[str]
) -> tuple[BuildSummary, list[str]]:
    """Steps 1-3 of this module for one study build: (Spark's summary, models to exclude from DuckDB's build).

    ``args``: the study build's dbt options (its ``--select``); ``run_ids``: the runs it computes
    (the study run and its evaluation runs), whose raw rows are exported again.
    """
    with open_warehouse() as con:
        raw_tables = export_raw(con, run_ids=list(run_ids))
    register_raw_tables(raw_tables)
    summary, tables = build_on_spark(args, label=label, run_ids=run_ids)
    with open_warehouse() as con:
        published = publish_spark_tables(con, tables, run_ids)
        # A table Spark left without Parquet that DuckDB does not hold either is built by
        # DuckDB's build from the published tables, so the models reading it find it.
        held = [t for t in tables if f"{t.schema}.{t.name}" in published or _kind(con, t.schema, t.name)]
    return summary, sorted({table.model for table in held})
