"""The raw Parquet a Spark build reads (warehouse/spark/raw_export.py export_raw): each run's rows once, no empty file.

No JVM: DuckDB writes the Parquet; Spark only reads it.
"""

from __future__ import annotations

import duckdb
import pytest

from biaswh.warehouse.settings.home import HOME_VARIABLE
from biaswh.warehouse.spark.raw_export import RAW_LOCATION_VARIABLE, export_raw


@pytest.fixture
def connection(tmp_path, monkeypatch):
    monkeypatch.setenv(HOME_VARIABLE, str(tmp_path / "warehouse"))
    monkeypatch.setenv(RAW_LOCATION_VARIABLE, str(tmp_path / "lake"))
    connection = duckdb.connect()
    connection.execute("create schema raw")
    connection.execute("create table raw.runs (run_id varchar, status varchar)")
    connection.execute("insert into raw.runs values ('a', 'succeeded'), ('b', 'running')")
    connection.execute("create table raw.scores (run_id varchar, score double)")
    connection.execute("insert into raw.scores values ('a', 0.5), ('a', 0.25)")
    yield connection
    connection.close()


def _files(tmp_path, table: str) -> dict[str, int]:
    """Each Parquet file of a raw table, relative to its folder, with its inode (a rewrite changes it)."""
    folder = tmp_path / "lake" / table
    return {str(path.relative_to(folder)): path.stat().st_ino for path in folder.rglob("*.parquet")}


def test_a_run_without_rows_in_a_table_writes_no_file_there(connection, tmp_path):
    export_raw(connection, run_ids=["b"])
    assert set(_files(tmp_path, "scores")) == {"run_id=a/data.parquet"}  # b has no scores: no empty file
    assert set(_files(tmp_path, "runs")) == {"run_id=a/data.parquet", "run_id=b/data.parquet"}


def test_a_finished_runs_rows_are_written_once(connection, tmp_path):
    export_raw(connection, run_ids=["a"])
    first = _files(tmp_path, "scores")
    connection.execute("insert into raw.runs values ('c', 'running')")
    connection.execute("insert into raw.scores values ('c', 0.75)")
    export_raw(connection, run_ids=["c"])
    after = _files(tmp_path, "scores")
    assert after["run_id=a/data.parquet"] == first["run_id=a/data.parquet"]  # not written again
    assert set(after) == {"run_id=a/data.parquet", "run_id=c/data.parquet"}
    rows = connection.execute(
        f"select run_id, score from read_parquet('{tmp_path}/lake/scores/*/*.parquet', hive_partitioning = true)"
        " order by all"
    ).fetchall()
    assert rows == [("a", 0.25), ("a", 0.5), ("c", 0.75)]


def test_a_lake_folder_named_with_a_quote_is_written(connection, tmp_path, monkeypatch):
    lake = tmp_path / 'it\'s a "lake"'
    monkeypatch.setenv(RAW_LOCATION_VARIABLE, str(lake))
    export_raw(connection, run_ids=["a"])
    assert sorted(p.relative_to(lake).as_posix() for p in lake.rglob("*.parquet")) == [
        "runs/run_id=a/data.parquet",
        "runs/run_id=b/data.parquet",
        "scores/run_id=a/data.parquet",
    ]
