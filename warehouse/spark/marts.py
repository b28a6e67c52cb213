"""A study's dbt builds on Spark (``biaswh run STUDY --target spark``), their marts copied into DuckDB.

One build step on Spark, in order:

1. the runs' ``raw.*`` rows go to Parquet, one folder per run, registered as Spark tables
   (:mod:`biaswh.warehouse.spark.target`);
2. ``dbt build --target spark`` builds every selected model that builds on Spark (the
   DuckDB-only ones are disabled there) with its data tests;
3. each table Spark built is copied from its Parquet into the same schema and name in the
   DuckDB warehouse, in ONE transaction: for a run-keyed (incremental) mart only the
   partitions of the runs this build computed replace those runs' rows (delete+insert by
   run, the semantics both targets give the mart), every other run's rows untouched; a
   plain table mart is replaced whole. A failure leaves DuckDB exactly as before;
4. DuckDB builds the rest of the selection (views, DuckDB-only models), the copied models
   excluded, so DuckDB-only marts read the rows Spark computed.

``biaswh sql``, the analysis steps and the dashboards then read DuckDB as on the default
target: one warehouse file, immutable runs, no reader ever sees a half-copied mart.
"""

from __future__ import annotations

import os
from typing import Sequence

import duckdb

from biaswh.warehouse.database.connection import open_warehouse
from biaswh.warehouse.database.transactions import transaction
from biaswh.warehouse.dbt_build.runner import BuildSummary
from biaswh.warehouse.spark.target import SparkTable, build_on_spark, export_raw, register_raw_tables, spark_folder

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
    root = os.environ.get(WAREHOUSE_LOCATION_VARIABLE) or str(spark_folder() / "warehouse")
    return f"{root.rstrip('/')}/{table.schema}.db/{table.name}"


def _parquet_files(con: duckdb.DuckDBPyConnection, pattern: str) -> list[str]:
    return [row[0] for row in con.execute("select file from glob(?) order by 1", [pattern]).fetchall()]


def _read(files: list[str], *, by_run: bool) -> str:
    listed = ", ".join("'" + file.replace("'", "''") + "'" for file in files)
    if not by_run:
        return f"read_parquet([{listed}], union_by_name = true)"
    # run_id comes from the folder name and stays text: a run id of digits must not become a number.
    options = "hive_partitioning = true, hive_types = {'run_id': VARCHAR}, union_by_name = true"
    return f"read_parquet([{listed}], {options})"


def _exists(con: duckdb.DuckDBPyConnection, schema: str, name: str) -> bool:
    query = "select count(*) from information_schema.tables where table_schema = ? and table_name = ?"
    return con.execute(query, [schema, name]).fetchone()[0] > 0


def copy_spark_tables(con: duckdb.DuckDBPyConnection, tables: Sequence[SparkTable], run_ids: Sequence[str]) -> dict:
    """Copy what Spark built into DuckDB in one transaction; rows copied per ``schema.name``.

    Incremental (run-keyed) tables: only the partitions of ``run_ids``, replacing those runs'
    rows. Other tables: replaced whole. Nothing is copied from a table without Parquet files.
    """
    copied = {}
    with transaction(con):
        for table in tables:
            location = table_location(table)
            target = f'"{table.schema}"."{table.name}"'
            con.execute(f'create schema if not exists "{table.schema}"')
            if table.materialized == "incremental":
                files = [f for run_id in run_ids for f in _parquet_files(con, f"{location}/run_id={run_id}/*.parquet")]
                if not files:
                    continue
                relation = _read(files, by_run=True)
                if _exists(con, table.schema, table.name):
                    placeholders = ", ".join("?" for _ in run_ids)
                    con.execute(f"delete from {target} where run_id in ({placeholders})", list(run_ids))
                    con.execute(f"insert into {target} by name select * from {relation}")
                else:
                    con.execute(f"create table {target} as select * from {relation}")
            else:
                files = _parquet_files(con, f"{location}/*.parquet")
                if not files:
                    continue
                relation = _read(files, by_run=False)
                con.execute(f"create or replace table {target} as select * from {relation}")
            copied[f"{table.schema}.{table.name}"] = con.execute(f"select count(*) from {relation}").fetchone()[0]
    return copied


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
        copied = copy_spark_tables(con, tables, run_ids)
        # A table Spark left without Parquet (no rows for these runs) that DuckDB does not hold yet
        # is built by DuckDB's build from the copied tables, so the models reading it find it.
        held = [t for t in tables if f"{t.schema}.{t.name}" in copied or _exists(con, t.schema, t.name)]
    return summary, sorted({table.model for table in held})
