"""Copying Spark's tables into DuckDB (warehouse/spark/marts.py) on Parquet laid out as Spark writes it.

No JVM: the Parquet is written by DuckDB in Spark's layout (a run-keyed table's rows under
``run_id=<id>/``, the column itself only in the folder name), and the table location comes
from ``BIASWH_SPARK_WAREHOUSE_LOCATION`` as it would for a Thrift server.
"""

from __future__ import annotations

import duckdb
import pytest

from biaswh.warehouse.spark.marts import WAREHOUSE_LOCATION_VARIABLE, copy_spark_tables
from biaswh.warehouse.spark.target import SparkTable

RUN_KEYED = SparkTable("fct_scores", "marts", "fct_scores", "incremental")
WHOLE = SparkTable("dim_items", "marts", "dim_items", "table")


@pytest.fixture
def spark_root(tmp_path, monkeypatch):
    root = tmp_path / "spark-warehouse"
    monkeypatch.setenv(WAREHOUSE_LOCATION_VARIABLE, str(root))
    return root


def _spark_parquet(connection, folder, query: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    connection.execute(f"copy ({query}) to '{folder / 'part-00000.snappy.parquet'}' (format parquet)")


@pytest.fixture
def connection(tmp_path, spark_root):
    connection = duckdb.connect(str(tmp_path / "warehouse.duckdb"))
    connection.execute("create schema marts")
    connection.execute("create table marts.fct_scores (run_id varchar, item integer, score double)")
    connection.execute("insert into marts.fct_scores values ('a', 1, 0.5), ('b', 1, 0.25), ('b', 2, 0.75)")
    connection.execute("create table marts.dim_items as select 1 as item, 'old' as label")
    scores = spark_root / "marts.db" / "fct_scores"
    _spark_parquet(connection, scores / "run_id=b", "select 1 as item, 0.3::double as score")
    _spark_parquet(connection, scores / "run_id=007", "select 3 as item, 0.9::double as score")
    _spark_parquet(connection, scores / "run_id=z", "select 9 as item, 9.0::double as score")  # not built now
    _spark_parquet(connection, spark_root / "marts.db" / "dim_items", "select 1 as item, 'new' as label")
    yield connection
    connection.close()


def test_only_the_built_runs_are_replaced_and_plain_tables_replaced_whole(connection):
    copied = copy_spark_tables(connection, [RUN_KEYED, WHOLE], ["b", "007"])
    assert copied == {"marts.fct_scores": 2, "marts.dim_items": 1}
    rows = connection.execute("select run_id, item, score from marts.fct_scores order by all").fetchall()
    # Run a untouched, run b's two rows replaced by Spark's one, run 007 added (its id stays text).
    assert rows == [("007", 3, 0.9), ("a", 1, 0.5), ("b", 1, 0.3)]
    assert connection.execute("select label from marts.dim_items").fetchall() == [("new",)]


def test_a_failed_copy_leaves_duckdb_as_it_was(connection, spark_root):
    broken = SparkTable("fct_broken", "marts", "fct_broken", "incremental")
    connection.execute("create table marts.fct_broken (run_id varchar, item integer)")
    _spark_parquet(connection, spark_root / "marts.db" / "fct_broken" / "run_id=b", "select 'x' as unknown_column")
    before = connection.execute("select * from marts.fct_scores order by all").fetchall()
    with pytest.raises(duckdb.Error):
        copy_spark_tables(connection, [RUN_KEYED, WHOLE, broken], ["b"])
    assert connection.execute("select * from marts.fct_scores order by all").fetchall() == before
    assert connection.execute("select label from marts.dim_items").fetchall() == [("old",)]


def test_a_new_run_keyed_table_is_created_from_the_runs_partitions(connection, spark_root):
    fresh = SparkTable("fct_fresh", "marts", "fct_fresh", "incremental")
    _spark_parquet(connection, spark_root / "marts.db" / "fct_fresh" / "run_id=b", "select 5 as item")
    assert copy_spark_tables(connection, [fresh], ["b"]) == {"marts.fct_fresh": 1}
    assert connection.execute("select run_id, item from marts.fct_fresh").fetchall() == [("b", 5)]
