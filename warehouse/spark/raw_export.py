"""The raw Parquet a Spark build reads: each run's ``raw.*`` rows in their own ``run_id=<id>`` folder.

DuckDB stays the warehouse every run writes to. For Spark, a run's ``raw.*`` rows are
exported to Parquet, one folder per run (``<raw location>/<table>/run_id=<id>/``), which
:mod:`biaswh.warehouse.spark.raw_registration` declares as Spark tables partitioned by ``run_id``;
:mod:`biaswh.warehouse.spark.target` then builds the dbt project on them.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import duckdb

from biaswh.warehouse.database.object_storage import has_parquet, is_url, open_object_storage
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.relations.column_docs import sql_string
from biaswh.warehouse.settings.home import warehouse_paths

# Where the raw Parquet goes: a folder path every executor reads (on a cluster, a shared
# filesystem or a mounted bucket; a URL is refused, check_raw_location). Default: $BIASWH_HOME/spark/raw.
RAW_LOCATION_VARIABLE = "BIASWH_SPARK_RAW_LOCATION"
# A run id becomes a folder name (run_id=<id>) that Spark parses back: only these characters.
_SAFE_RUN_ID = re.compile(r"^[A-Za-z0-9_.-]+$")
# DuckDB column types as Spark DDL. Timestamps stay without a time zone, as DuckDB writes them.
_SPARK_TYPES = {
    "VARCHAR": "string",
    "JSON": "string",
    "INTEGER": "int",
    "BIGINT": "bigint",
    "SMALLINT": "smallint",
    "DOUBLE": "double",
    "FLOAT": "float",
    "BOOLEAN": "boolean",
    "DATE": "date",
    "TIMESTAMP": "timestamp_ntz",
    "TIMESTAMP WITH TIME ZONE": "timestamp",
}


# Raw tables whose rows change after their run wrote them: exported whole every time.
_MUTABLE_TABLES = {"runs"}


@dataclass(frozen=True)
class RawTable:
    """One exported ``raw`` table: its Spark columns, whether it is split by run, and where;
    for a split one, the runs it holds rows of (``partitions``) and those this export wrote (``written``)."""

    name: str
    columns: tuple[tuple[str, str], ...]
    partitioned: bool
    location: str
    partitions: tuple[str, ...] = ()
    written: tuple[str, ...] = ()


def spark_folder() -> Path:
    """The Spark side of this warehouse: metastore, table Parquet and raw Parquet."""
    return warehouse_paths().home / "spark"


def check_raw_location() -> None:
    """Refuse a ``BIASWH_SPARK_RAW_LOCATION`` that is a URL (``s3a://``, ``gs://``, ...), before any work.

    DuckDB writes the raw Parquet to a folder path, and Spark reads ``s3a://`` only with the
    hadoop-aws jar and the AWS SDK bundle on its classpath, which pyspark does not ship and this
    project cannot fetch; without this check the Parquet went to a local folder named ``s3a:``.
    A bucket mounted as a folder (s3fs, gcsfuse, a shared filesystem) works as any path.
    """
    value = os.environ.get(RAW_LOCATION_VARIABLE, "")
    if "://" not in value:
        return
    scheme = value.split("://", 1)[0]
    raise UserError(
        f"{RAW_LOCATION_VARIABLE}={value}: object storage ({scheme}://) is not supported for the raw Parquet:"
        f" DuckDB writes it to a folder path, and Spark would need the jars hadoop-aws and aws-java-sdk-bundle"
        f" ({_hadoop_aws_status()}); mount the bucket as a folder (s3fs, gcsfuse) or use a shared filesystem path"
    )


def _hadoop_aws_status() -> str:
    """Whether pyspark's own jars hold hadoop-aws, in words."""
    import importlib.util

    spec = importlib.util.find_spec("pyspark")
    if spec is None or spec.origin is None:
        return "pyspark is not installed here"
    found = sorted(p.name for p in (Path(spec.origin).parent / "jars").glob("hadoop-aws-*.jar"))
    return f"pyspark's jars have {found[0]}" if found else "pyspark's jars here have neither"


def raw_location() -> str:
    """Where the raw Parquet is written (``BIASWH_SPARK_RAW_LOCATION``, else ``$BIASWH_HOME/spark/raw``)."""
    check_raw_location()
    return os.environ.get(RAW_LOCATION_VARIABLE) or str(spark_folder() / "raw")


def _spark_type(duckdb_type: str, *, table: str, column: str) -> str:
    if duckdb_type.endswith("[]"):
        return f"array<{_spark_type(duckdb_type[:-2], table=table, column=column)}>"
    if duckdb_type.startswith("DECIMAL"):
        return duckdb_type.lower()
    if duckdb_type not in _SPARK_TYPES:
        raise UserError(
            f"raw.{table}.{column}: type {duckdb_type} has no Spark mapping in warehouse/spark/raw_export.py"
        )
    return _SPARK_TYPES[duckdb_type]


def _write_parquet(connection: duckdb.DuckDBPyConnection, query: str, params: list, folder: str) -> None:
    if is_url(folder):  # an object appears whole when its upload completes
        connection.execute(f"copy ({query}) to {sql_string(folder + '/data.parquet')} (format parquet)", params)
        return
    # Written beside, then renamed: a reader never sees half a file.
    Path(folder).mkdir(parents=True, exist_ok=True)
    final = Path(folder) / "data.parquet"
    partial = Path(folder) / ".data.parquet.partial"
    connection.execute(f"copy ({query}) to {sql_string(str(partial))} (format parquet)", params)
    partial.replace(final)


def export_raw(
    connection: duckdb.DuckDBPyConnection, *, run_ids: list[str] | None = None, location: str | None = None
) -> list[RawTable]:
    """Write ``raw.*`` to Parquet for Spark: each run's rows in its own ``run_id=<id>`` folder.

    ``run_ids``: these runs' folders are (re)written, and those of runs never exported yet
    (a finished run's raw rows never change); None writes every run. A run without rows in a
    table gets no folder there (no empty Parquet). ``raw.runs`` is written
    whole every time (a run's status changes when it ends), as are tables without ``run_id``.
    ``location``: the lake's root, a folder or ``s3://bucket/prefix`` (DuckDB's httpfs,
    :mod:`biaswh.warehouse.database.object_storage`); default :func:`raw_location`.
    Returns every raw table, for :func:`biaswh.warehouse.spark.raw_registration.register_raw_tables`.
    """
    location = location or raw_location()
    if is_url(location):
        open_object_storage(connection, location)
    tables = [
        row[0]
        for row in connection.execute(
            "select table_name from information_schema.tables where table_schema = 'raw' order by 1"
        ).fetchall()
    ]
    exported = []
    for table in tables:
        described = connection.execute(
            "select column_name, data_type from information_schema.columns"
            " where table_schema = 'raw' and table_name = ? order by ordinal_position",
            [table],
        ).fetchall()
        names = [name for name, _ in described]
        partitioned = "run_id" in names
        data_columns = [(name, kind) for name, kind in described if name != "run_id"]
        columns = tuple((name, _spark_type(kind, table=table, column=name)) for name, kind in data_columns)
        folder = f"{location}/{table}"
        # Spark declares a table on its folder, so the folder exists even before a run has rows.
        if not is_url(folder):
            Path(folder).mkdir(parents=True, exist_ok=True)
        select_list = ", ".join(f'"{name}"' for name, _ in data_columns)
        present, wanted = [], []
        if partitioned:
            present = [r[0] for r in connection.execute(f"select distinct run_id from raw.{table}").fetchall()]
            wanted = present
            if run_ids is not None and table not in _MUTABLE_TABLES:
                # Only runs with rows here: a folder per run and table, never an empty file.
                never_exported = {r for r in present if not has_parquet(connection, f"{folder}/run_id={r}")}
                wanted = sorted((set(run_ids) & set(present)) | never_exported)
            for run_id in wanted:
                if not _SAFE_RUN_ID.match(run_id):
                    raise UserError(f"raw.{table}: run_id {run_id!r} cannot name a Parquet folder for Spark")
                query = f"select {select_list} from raw.{table} where run_id = ?"
                _write_parquet(connection, query, [run_id], f"{folder}/run_id={run_id}")
            columns = (*columns, ("run_id", "string"))
        else:
            _write_parquet(connection, f"select {select_list} from raw.{table}", [], folder)
        exported.append(RawTable(table, columns, partitioned, folder, tuple(sorted(present)), tuple(sorted(wanted))))
    return exported
