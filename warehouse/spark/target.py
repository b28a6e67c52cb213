"""The dbt project on Apache Spark (``--target spark``): an in-process build on the raw Parquet.

DuckDB stays the warehouse every run writes to. For Spark, a run's ``raw.*`` rows are
exported to Parquet, one folder per run (:mod:`biaswh.warehouse.spark.raw_export`), and
registered as Spark tables partitioned by ``run_id`` (the dbt macro
``register_raw_tables``, so the same statements reach a Thrift cluster). dbt then builds
the models on Spark; run-keyed marts are Parquet tables partitioned by ``run_id`` that
DuckDB reads in place (:mod:`biaswh.warehouse.spark.marts`).

dbt runs in this Python process (``dbtRunner``): dbt-spark's session mode keeps one
SparkSession, and so one JVM (about 20-50 s to start), for every build of the process.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import duckdb

from biaswh.warehouse.database.connection import quiet
from biaswh.warehouse.dbt_build.invoke import close_dbt_log_files, environment
from biaswh.warehouse.dbt_build.parse_cache import seed_partial_parse, share_partial_parse
from biaswh.warehouse.dbt_build.project_dir import dbt_project_dir
from biaswh.warehouse.dbt_build.runner import BUILD_RUN_IDS_VARIABLE, FAILED_STATUSES, BuildSummary
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.relations.column_docs import sql_string
from biaswh.warehouse.runs.sub_runs import SUB_RUN_KINDS, withdrawn_sub_runs_sql
from biaswh.warehouse.settings.home import DBT_PROJECT_DIR, HOME_VARIABLE, warehouse_paths
from biaswh.warehouse.spark.jvm import start_jvm_quietly
from biaswh.warehouse.spark.metastore_move import repoint_metastore, spark_running
from biaswh.warehouse.spark.raw_export import raw_location
from biaswh.warehouse.spark.targets import spark_method, spark_target_name

# The withdrawn runs (macro not_withdrawn), listed for a Spark build: Spark plans the macro's
# `not in (subquery)` as a null-aware anti join, half a second of every data test on small data.
WITHDRAWN_RUN_IDS_VARIABLE = "BIASWH_WITHDRAWN_RUN_IDS"


def invoke_dbt(arguments: list[str]):
    """Run one dbt command on the Spark target (:func:`spark_target_name`) in this process; (result, seconds).
    A warehouse's first starts from the machine's parse state of the target (dbt_build/parse_cache.py)."""
    from dbt.cli.main import dbtRunner

    folder = warehouse_paths().home / "dbt"
    target = spark_target_name()
    target_path, parse_args = folder / f"target-{target}", ["--target", target]
    if spark_method(target) == "session":
        if not spark_running():  # a moved or copied folder's metastore names its own folder first
            repoint_metastore()
        start_jvm_quietly(folder / "logs" / "spark-jvm.log")
    os.environ[HOME_VARIABLE] = str(warehouse_paths().home)
    os.environ.setdefault("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")
    command = [
        *arguments[:1],
        "--project-dir",
        str(dbt_project_dir()),
        "--profiles-dir",
        str(DBT_PROJECT_DIR),
        "--target",
        target,
        "--target-path",
        str(target_path),
        "--log-path",
        str(folder / "logs"),
        "--quiet",
        *arguments[1:],
    ]
    seed_partial_parse(target_path, parse_args)
    begin, started = time.perf_counter(), time.time_ns()
    close_dbt_log_files()  # dbt drops the previous handler without closing it
    try:
        result = dbtRunner().invoke(command)
    finally:
        close_dbt_log_files()
    if result.success:
        share_partial_parse(target_path, parse_args, started)
    return result, time.perf_counter() - begin


def withdrawn_run_ids() -> list[str] | None:
    """The runs Spark's raw tables hold as withdrawn (macro withdrawn_run_ids), read from the exported Parquet.

    The same query as the macro's, on the same rows: the failed or interrupted runs and the
    sub-runs of such a run (:mod:`biaswh.warehouse.runs.sub_runs`). None when the raw Parquet is not a local
    folder (object storage): the macro then asks Spark.
    """
    folder = Path(raw_location())
    if not any((folder / "runs").glob("run_id=*/*.parquet")):
        return None
    withdrawn = "status in ('failed', 'interrupted')"

    def parquet(table: str) -> str:
        files = sql_string(f"{folder / table}/run_id=*/*.parquet")
        return f"read_parquet({files}, hive_partitioning = true, hive_types = {{'run_id': varchar}})"

    exported = {kind.table for kind in SUB_RUN_KINDS.values() if any((folder / kind.table).glob("run_id=*/*.parquet"))}
    query = f"select run_id from {parquet('runs')} where {withdrawn}"
    query += withdrawn_sub_runs_sql(parquet, f"parent.{withdrawn}", tables=exported)
    with quiet(duckdb.connect()) as connection:
        return sorted({row[0] for row in connection.execute(query).fetchall()})


@dataclass(frozen=True)
class SparkTable:
    """A model a Spark build materialised as a table (``materialized`` table or incremental).

    ``description`` and ``columns`` (name, declared DuckDB type or '', description), in the
    order of the model's yml: what DuckDB's relation over it carries.
    """

    model: str
    schema: str
    name: str
    materialized: str
    description: str = ""
    columns: tuple[tuple[str, str, str], ...] = ()


def _spark_table(node, materialized: str) -> SparkTable:
    columns = tuple(
        (column.name, column.data_type or "", (column.description or "").strip()) for column in node.columns.values()
    )
    description = (node.description or "").strip()
    return SparkTable(node.name, node.schema, node.alias, materialized, description, columns)


def build_on_spark(
    args: list[str] | None = None, *, label: str = "all", run_ids: Sequence[str] = ()
) -> tuple[BuildSummary, list[SparkTable]]:
    """``dbt build --target spark`` in this process: its summary and the tables it built.

    ``run_ids``: the runs whose rows the data tests of run-keyed models check (empty: every
    run that did not fail), as for the DuckDB build. Raises a one-line error when a node fails.
    """
    withdrawn = withdrawn_run_ids()  # None, not readable here: the macro asks Spark, whatever the caller set
    variables = {
        BUILD_RUN_IDS_VARIABLE: ",".join(run_ids),
        WITHDRAWN_RUN_IDS_VARIABLE: None if withdrawn is None else ",".join(withdrawn),
    }
    with environment(variables):
        result, seconds = invoke_dbt(["build", *(args or [])])
    counts: dict[str, int] = {}
    failures = []
    tables = []
    for node in getattr(result.result, "results", None) or []:
        status = str(node.status)
        counts[status] = counts.get(status, 0) + 1
        if status in FAILED_STATUSES:
            failures.append((node.node.unique_id, " ".join(str(node.message or "").split())[:300], None))
        materialized = getattr(node.node.config, "materialized", None)
        if node.node.resource_type == "model" and materialized in ("table", "incremental") and status == "success":
            tables.append(_spark_table(node.node, materialized))
    summary = BuildSummary(f"{label}, Spark", seconds, counts, failures, str(warehouse_paths().home / "dbt" / "logs"))
    if not result.success:
        details = "; ".join(f"{uid}: {message}" for uid, message, _ in failures[:5])
        raise UserError(f"dbt build ({label}, Spark) failed: {details or result.exception}")
    return summary, tables


def run_spark_build(args: list[str] | None = None, *, label: str = "all") -> BuildSummary:
    """``dbt build --target spark`` in this process; raise a one-line error when a node fails."""
    return build_on_spark(args, label=label)[0]
