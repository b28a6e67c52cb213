"""A warehouse folder moved or copied elsewhere reads its own lake (warehouse/database/parquet_views.py).

No JVM: the Parquet is laid out as a Spark build leaves it under ``$BIASWH_HOME/spark/warehouse``
(the root comes from ``BIASWH_SPARK_WAREHOUSE_LOCATION``, as for a Thrift server), the views are
published by ``publish_spark_tables`` on a connection of ours, and the folder (its name holds a
space and a quote) is then moved or copied. Read back through ``biaswh sql``'s sandbox, ``biaswh
where``, a writing connection, a plain ``duckdb`` user and dbt's DuckDB profile.
"""

from __future__ import annotations

import shutil

import duckdb
import pytest

from biaswh.warehouse.database.connection import open_warehouse
from biaswh.warehouse.database.sandbox import open_sandbox
from biaswh.warehouse.settings.home import HOME_VARIABLE
from biaswh.warehouse.spark.marts import WAREHOUSE_LOCATION_VARIABLE, publish_spark_tables
from biaswh.warehouse.spark.target import SparkTable
from biaswh.where_cli import where_lines

SCORES = SparkTable(
    "fct_scores", "marts", "fct_scores", "incremental", "One row per run and item.", (("run_id", "VARCHAR", ""),)
)
ITEMS = SparkTable("dim_items", "marts", "dim_items", "table", "One row per item.", (("item", "INTEGER", ""),))
A_RUN = "insert into raw.runs (run_id, kind, status, started_at) values ('a', 'study', 'succeeded', now())"
READ_BACK = "select run_id, item from marts.fct_scores union all select 'items', item from marts.dim_items order by all"


def _write(connection, folder, item: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    target = str(folder / "part-00000.snappy.parquet").replace("'", "''")
    connection.execute(f"copy (select {item}::bigint as item) to '{target}' (format parquet)")


def _lake(home):
    return home / "spark" / "warehouse" / "marts.db"


@pytest.fixture
def built(tmp_path, monkeypatch):
    """A warehouse folder whose marts are views over the Parquet in its own ``spark/`` folder."""
    home = tmp_path / "first place" / "Bob's warehouse"
    monkeypatch.setenv(HOME_VARIABLE, str(home))
    monkeypatch.setenv(WAREHOUSE_LOCATION_VARIABLE, str(home / "spark" / "warehouse"))
    with open_warehouse() as connection:
        connection.execute(
            "insert into raw.runs (run_id, kind, status, started_at) values ('a', 'study', 'succeeded', now())"
        )
        _write(connection, _lake(home) / "fct_scores" / "run_id=a", 1)
        _write(connection, _lake(home) / "dim_items", 7)
        assert publish_spark_tables(connection, [SCORES, ITEMS], ["a"]) == {
            "marts.fct_scores": "view",
            "marts.dim_items": "view",
        }
        assert connection.execute(READ_BACK).fetchall() == [("a", 1), ("items", 7)]
    return home


def _moved(built, destination, monkeypatch, *, copy: bool):
    destination.parent.mkdir(parents=True, exist_ok=True)
    (shutil.copytree if copy else shutil.move)(built, destination)
    monkeypatch.setenv(HOME_VARIABLE, str(destination))
    monkeypatch.delenv(WAREHOUSE_LOCATION_VARIABLE)
    return destination


def test_a_moved_folder_reads_its_own_lake_in_every_connection_of_ours(built, tmp_path, monkeypatch):
    home = _moved(built, tmp_path / "bigger disk" / "it's moved", monkeypatch, copy=False)
    assert not built.exists()
    with open_warehouse() as connection:
        assert connection.execute(READ_BACK).fetchall() == [("a", 1), ("items", 7)]
    with open_sandbox(["marts"]) as sandboxed:  # biaswh sql: the moved folders are the readable ones
        assert sandboxed.execute("select item from fct_scores").fetchall() == [(1,)]
        with pytest.raises(duckdb.PermissionException):
            sandboxed.execute(
                f"select * from read_blob('{str(home / 'warehouse.duckdb').replace(chr(39), chr(39) * 2)}')"
            )
    lines = where_lines("marts")
    assert f"marts.fct_scores  view   {_lake(home) / 'fct_scores'}" in lines, lines
    assert f"marts.dim_items   view   {_lake(home) / 'dim_items'}" in lines, lines


def test_a_copy_reads_its_own_parquet_not_the_originals(built, tmp_path, monkeypatch):
    home = _moved(built, tmp_path / "colleague" / "copy", monkeypatch, copy=True)
    with duckdb.connect() as writer:  # the original's lake changes after the copy
        _write(writer, _lake(built) / "fct_scores" / "run_id=a", 2)
    with open_warehouse(read_only=True) as connection:
        assert connection.execute(READ_BACK).fetchall() == [("a", 1), ("items", 7)]
    monkeypatch.setenv(HOME_VARIABLE, str(built))
    with open_warehouse(read_only=True) as connection:
        assert connection.execute(READ_BACK).fetchall() == [("a", 2), ("items", 7)]
    assert f"marts.fct_scores  view   {_lake(built) / 'fct_scores'}" in where_lines("marts")
    monkeypatch.setenv(HOME_VARIABLE, str(home))
    assert f"marts.fct_scores  view   {_lake(home) / 'fct_scores'}" in where_lines("marts")


def test_a_plain_duckdb_user_sets_home_directory_to_the_folder(built, tmp_path, monkeypatch):
    home = _moved(built, tmp_path / "elsewhere", monkeypatch, copy=False)
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as plain:
        plain.execute(f"set home_directory = '{home}'")
        assert plain.execute(READ_BACK).fetchall() == [("a", 1), ("items", 7)]


def test_only_paths_in_the_folder_are_named_from_it(tmp_path):
    from biaswh.warehouse.database.parquet_views import lake_path

    home = tmp_path / "home"
    assert lake_path(str(home / "spark" / "warehouse" / "marts.db" / "t"), home) == "~/spark/warehouse/marts.db/t"
    assert lake_path(str(home), home) == "~"
    for elsewhere in ("s3://bucket/lake/marts.db/t", str(tmp_path / "home2" / "t"), str(tmp_path)):
        assert lake_path(elsewhere, home) == elsewhere
    assert lake_path(str(home / "t"), None) == str(home / "t")


def test_a_lake_outside_the_folder_stays_named_as_it_is(tmp_path, monkeypatch):
    home, root = tmp_path / "home", tmp_path / "shared lake"
    monkeypatch.setenv(HOME_VARIABLE, str(home))
    monkeypatch.setenv(WAREHOUSE_LOCATION_VARIABLE, str(root))
    with open_warehouse() as connection:
        connection.execute(
            "insert into raw.runs (run_id, kind, status, started_at) values ('a', 'study', 'succeeded', now())"
        )
        _write(connection, root / "marts.db" / "dim_items", 7)
        publish_spark_tables(connection, [ITEMS], ["a"])
        (sql,) = connection.execute("select sql from duckdb_views() where view_name = 'dim_items'").fetchone()
    assert f"read_parquet('{root}/marts.db/dim_items/*.parquet'" in sql and "~" not in sql


def test_a_warehouse_whose_views_name_absolute_paths_can_move_once_opened_for_writing(tmp_path, monkeypatch):
    # Views published before views named the folder ~/ (a connection without home_directory
    # names absolute paths): the next writing open renames them, comments kept.
    home = tmp_path / "old build"
    monkeypatch.setenv(HOME_VARIABLE, str(home))
    monkeypatch.setenv(WAREHOUSE_LOCATION_VARIABLE, str(home / "spark" / "warehouse"))
    with open_warehouse() as connection:
        connection.execute(A_RUN)
    with duckdb.connect(str(home / "warehouse.duckdb")) as connection:
        _write(connection, _lake(home) / "fct_scores" / "run_id=a", 1)
        _write(connection, _lake(home) / "dim_items", 7)
        publish_spark_tables(connection, [SCORES, ITEMS], ["a"])
        absolute = connection.execute("select count(*) from duckdb_views() where contains(sql, ?)", [str(home)])
        assert absolute.fetchone() == (2,)
    with open_warehouse() as connection:
        assert connection.execute(
            "select count(*) from duckdb_views() where contains(sql, ?)", [str(home)]
        ).fetchone() == (0,)
        comments = connection.execute(
            "select comment from duckdb_views() where view_name in ('fct_scores', 'dim_items') order by 1"
        ).fetchall()
        assert comments == [("One row per item.",), ("One row per run and item.",)]
    moved = _moved(home, tmp_path / "new place", monkeypatch, copy=False)
    with open_warehouse(read_only=True) as connection:
        assert connection.execute(READ_BACK).fetchall() == [("a", 1), ("items", 7)]
    assert f"marts.dim_items   view   {_lake(moved) / 'dim_items'}" in where_lines("marts")


@pytest.mark.dbt
def test_dbts_duckdb_connection_reads_the_moved_lake(built, tmp_path, monkeypatch):
    # dbt's profile sets home_directory too (BIASWH_DBT_HOME_DIRECTORY "." from the folder dbt runs in).
    from biaswh.warehouse.dbt_build.invoke import invoke_dbt

    _moved(built, tmp_path / "moved for dbt", monkeypatch, copy=False)
    outcome = invoke_dbt(["show", "--inline", READ_BACK, "--output", "json"])
    assert outcome.success, outcome.exception
    assert [tuple(row) for row in outcome.result.results[0].agate_table.rows] == [("a", 1), ("items", 7)]
