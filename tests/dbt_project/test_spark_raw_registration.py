"""The raw Parquet declared on Spark once per session (warehouse/spark/raw_registration.py): later
builds add the new runs' partitions and refresh rewritten folders, and Spark reads what DuckDB holds.

Real Spark (session mode, local[2]) in this process, on a small raw schema written by DuckDB.
"""

from __future__ import annotations

import duckdb
import pytest

from biaswh.warehouse.settings.home import HOME_VARIABLE
from tests.dbt_project.spark_equality import require_spark

pytestmark = [pytest.mark.spark, pytest.mark.dbt]


# Each raw table: its columns and first rows (runs and scores split by run, settings without run_id).
RAW_TABLES = {
    "runs": ("run_id varchar, status varchar", "('a', 'succeeded'), ('b', 'running')"),
    "scores": ("run_id varchar, score double", "('a', 0.5), ('a', 0.25)"),
    "settings": ("name varchar, value varchar", "('seed', '7')"),
}


@pytest.fixture
def raw(tmp_path, monkeypatch):
    """A DuckDB ``raw`` schema of :data:`RAW_TABLES`, exported under ``tmp_path/lake``."""
    require_spark()
    from biaswh.warehouse.spark.raw_export import RAW_LOCATION_VARIABLE

    monkeypatch.setenv(HOME_VARIABLE, str(tmp_path / "warehouse"))
    monkeypatch.setenv(RAW_LOCATION_VARIABLE, str(tmp_path / "lake"))
    connection = duckdb.connect()
    connection.execute("create schema raw")
    for name, (columns, rows) in RAW_TABLES.items():
        connection.execute(f"create table raw.{name} ({columns})")
        connection.execute(f"insert into raw.{name} values {rows}")
    yield connection
    connection.close()


def _register(connection, run_ids: list[str] | None) -> dict[str, dict]:
    from biaswh.warehouse.spark.raw_export import export_raw
    from biaswh.warehouse.spark.raw_registration import register_raw_tables

    plan = register_raw_tables(export_raw(connection, run_ids=run_ids))
    return {table["name"]: table for table in plan}


def _spark(query: str) -> list[tuple]:
    from pyspark.sql import SparkSession

    return sorted(tuple(row) for row in SparkSession.getActiveSession().sql(query).collect())


def test_a_later_build_adds_new_runs_and_refreshes_rewritten_folders(raw):
    first = _register(raw, None)
    # The first time this session sees these folders: every table declared (another test of the
    # process may have declared raw.runs on its own warehouse's folder).
    assert {name: table["action"] for name, table in first.items()} == {
        "runs": "create",
        "scores": "create",
        "settings": "create",
    }
    assert _spark("select run_id, score from raw.scores") == [("a", 0.25), ("a", 0.5)]

    raw.execute("update raw.runs set status = 'succeeded' where run_id = 'b'")
    raw.execute("insert into raw.runs values ('c', 'running')")
    raw.execute("insert into raw.scores values ('c', 0.75)")
    raw.execute("update raw.settings set value = '8'")
    second = _register(raw, ["c"])
    assert second == {
        # raw.runs is written whole: run c added, a's and b's folders read again (b's status changed).
        "runs": {"name": "runs", "location": first["runs"]["location"], "partitioned": True}
        | {"action": "update", "add": ["c"], "refresh": True},
        "scores": {"name": "scores", "location": first["scores"]["location"], "partitioned": True}
        | {"action": "update", "add": ["c"], "refresh": False},
        "settings": {"name": "settings", "location": first["settings"]["location"], "partitioned": False}
        | {"action": "update", "add": [], "refresh": True},
    }
    assert _spark("select run_id, status from raw.runs") == [("a", "succeeded"), ("b", "succeeded"), ("c", "running")]
    assert _spark("select run_id, score from raw.scores") == [("a", 0.25), ("a", 0.5), ("c", 0.75)]
    assert _spark("select name, value from raw.settings") == [("seed", "8")]

    # No new run: scores is left alone; a new column declares the table again.
    assert "scores" not in _register(raw, [])
    raw.execute("alter table raw.scores add column query varchar default 'q1'")
    third = _register(raw, None)  # every folder written again, with the column
    assert third["scores"]["action"] == "create"
    assert ["query", "string"] in third["scores"]["columns"]
    assert _spark("select run_id, query from raw.scores") == [("a", "q1"), ("a", "q1"), ("c", "q1")]


def test_a_new_session_declares_every_table_again(raw):
    from biaswh.warehouse.spark.raw_export import export_raw
    from biaswh.warehouse.spark.raw_registration import registration_plan

    tables = export_raw(raw, run_ids=None)
    plan = registration_plan(tables, {})
    assert [(table["name"], table["action"]) for table in plan] == [
        ("runs", "create"),
        ("scores", "create"),
        ("settings", "create"),
    ]
    assert plan[0]["columns"] == [["status", "string"], ["run_id", "string"]]


def test_a_fresh_warehouses_first_spark_command_starts_from_the_shared_parse(raw, tmp_path, monkeypatch):
    # The first command parsed the project (or found the session's shared parse of it) and shared
    # its state; another warehouse's first command starts from that state, not a full parse.
    _register(raw, None)
    monkeypatch.setenv(HOME_VARIABLE, str(tmp_path / "another"))
    assert _register(raw, None)  # the settings table is refreshed: a dbt command ran
    log = (tmp_path / "another" / "dbt" / "logs" / "dbt.log").read_text(encoding="utf-8")
    assert "Partial parsing enabled" in log and "Starting full parse" not in log, log[:3000]


def test_a_lake_folder_named_with_quotes_is_declared_and_read(raw, tmp_path, monkeypatch):
    # Each location is written as an escaped Spark string literal (it was cut at the quote).
    from biaswh.warehouse.spark.raw_export import RAW_LOCATION_VARIABLE

    lake = tmp_path / 'it\'s a "lake"'
    monkeypatch.setenv(RAW_LOCATION_VARIABLE, str(lake))
    first = _register(raw, None)
    assert first["scores"]["location"] == str(lake / "scores")
    assert _spark("select run_id, score from raw.scores") == [("a", 0.25), ("a", 0.5)]
    raw.execute("insert into raw.runs values ('c', 'running')")
    raw.execute("insert into raw.scores values ('c', 0.75)")
    assert _register(raw, ["c"])["scores"]["add"] == ["c"]  # a partition added at its escaped folder
    assert _spark("select run_id, score from raw.scores") == [("a", 0.25), ("a", 0.5), ("c", 0.75)]
