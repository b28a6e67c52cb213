"""DuckDB reading Spark's tables in place (warehouse/spark/marts.py), on Parquet laid out as Spark writes it.

No JVM: the Parquet is written by DuckDB in Spark's layout (a run-keyed table's rows under
``run_id=<id>/``, the column itself only in the folder name, integers as Spark writes them), and
the table location comes from ``BIASWH_SPARK_WAREHOUSE_LOCATION`` as it would for a Thrift server.
"""

from __future__ import annotations

import duckdb
import pytest

from biaswh.warehouse.spark.marts import WAREHOUSE_LOCATION_VARIABLE, publish_spark_tables
from biaswh.warehouse.spark.target import SparkTable

SCORE_COLUMNS = (
    ("run_id", "VARCHAR", "The run."),
    ("item", "INTEGER", "The item."),
    ("n_hits", "HUGEINT", "Hits, a DuckDB sum."),
    ("details", "JSON", "What was scored."),
)
RUN_KEYED = SparkTable("fct_scores", "marts", "fct_scores", "incremental", "One row per run and item.", SCORE_COLUMNS)
WHOLE = SparkTable(
    "dim_items", "marts", "dim_items", "table", "One row per item.", (("item", "INTEGER", ""), ("label", "VARCHAR", ""))
)


@pytest.fixture
def spark_root(tmp_path, monkeypatch):
    root = tmp_path / "spark-warehouse"
    monkeypatch.setenv(WAREHOUSE_LOCATION_VARIABLE, str(root))
    return root


def _spark_parquet(connection, folder, query: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    connection.execute(f"copy ({query}) to '{folder / 'part-00000.snappy.parquet'}' (format parquet)")


def _score(item: int, hits: int) -> str:
    return f"""select {item}::bigint as item, {hits}::bigint as n_hits, '{{"k": {item}}}' as details"""


@pytest.fixture
def connection(tmp_path, spark_root):
    connection = duckdb.connect(str(tmp_path / "warehouse.duckdb"))
    connection.execute("create schema raw")
    connection.execute("create table raw.runs (run_id varchar, status varchar)")
    runs = "('a', 'succeeded'), ('b', 'running'), ('x', 'failed'), ('007', 'running')"
    connection.execute(f"insert into raw.runs values {runs}")
    scores = spark_root / "marts.db" / "fct_scores"
    _spark_parquet(connection, scores / "run_id=a", _score(1, 5))
    _spark_parquet(connection, scores / "run_id=b", _score(2, 7))
    _spark_parquet(connection, scores / "run_id=x", _score(9, 9))  # a failed run's rows: never shown
    _spark_parquet(connection, scores / "run_id=other", _score(8, 8))  # another warehouse's run (one JVM, one folder)
    _spark_parquet(connection, spark_root / "marts.db" / "dim_items", "select 1 as item, 'new' as label")
    yield connection
    connection.close()


def _comments(connection, name: str) -> dict:
    rows = connection.execute(
        "select column_name, data_type, comment from duckdb_columns() where schema_name = 'marts' and table_name = ?",
        [name],
    ).fetchall()
    return {column: (kind, comment) for column, kind, comment in rows}


def test_spark_tables_become_typed_documented_views_with_no_row_copied(connection):
    assert publish_spark_tables(connection, [RUN_KEYED, WHOLE], ["b"]) == {
        "marts.fct_scores": "view",
        "marts.dim_items": "view",
    }
    assert connection.execute("select count(*) from duckdb_tables() where schema_name = 'marts'").fetchone() == (0,)
    rows = connection.execute("select run_id, item, n_hits, details from marts.fct_scores order by all").fetchall()
    assert rows == [("a", 1, 5, '{"k": 1}'), ("b", 2, 7, '{"k": 2}')]
    # The yml's types and order (run_id first, where Spark writes it last), and its descriptions.
    assert _comments(connection, "fct_scores") == {name: (kind, text) for name, kind, text in SCORE_COLUMNS}
    (comment,) = connection.execute("select comment from duckdb_views() where view_name = 'fct_scores'").fetchone()
    assert comment == "One row per run and item."
    assert connection.execute("select label from marts.dim_items").fetchall() == [("new",)]


def test_a_runs_partition_written_later_is_read_without_publishing_again(connection, spark_root):
    publish_spark_tables(connection, [RUN_KEYED], ["b"])
    _spark_parquet(connection, spark_root / "marts.db" / "fct_scores" / "run_id=007", _score(3, 1))
    rows = connection.execute("select run_id, item from marts.fct_scores order by all").fetchall()
    assert rows == [("007", 3), ("a", 1), ("b", 2)]  # a run id of digits stays text


def test_a_table_duckdb_built_before_keeps_its_other_runs_and_gets_this_builds(connection):
    connection.execute("create schema marts")
    connection.execute("create table marts.fct_scores (run_id varchar, item integer, n_hits hugeint, details json)")
    rows = "('a', 1, 5, '{}'), ('b', 1, 0, '{}'), ('old', 4, 4, '{}')"
    connection.execute(f"insert into marts.fct_scores values {rows}")
    assert publish_spark_tables(connection, [RUN_KEYED], ["b"]) == {"marts.fct_scores": 1}
    rows = connection.execute("select run_id, item, n_hits from marts.fct_scores order by all").fetchall()
    assert rows == [("a", 1, 5), ("b", 2, 7), ("old", 4, 4)]
    assert _comments(connection, "fct_scores")["n_hits"][0] == "HUGEINT"


def test_a_failed_publish_leaves_duckdb_as_it_was(connection, spark_root):
    # A table DuckDB built before, whose Spark Parquet has a column it lacks: the copy fails.
    connection.execute("create schema marts")
    connection.execute("create table marts.fct_broken (run_id varchar, item integer)")
    connection.execute("insert into marts.fct_broken values ('b', 1)")
    _spark_parquet(connection, spark_root / "marts.db" / "fct_broken" / "run_id=b", "select 'x' as unknown_column")
    broken = SparkTable("fct_broken", "marts", "fct_broken", "incremental", "", (("run_id", "VARCHAR", ""),))
    with pytest.raises(duckdb.Error):
        publish_spark_tables(connection, [RUN_KEYED, WHOLE, broken], ["b"])
    assert connection.execute("select count(*) from duckdb_views() where schema_name = 'marts'").fetchone() == (0,)
    assert connection.execute("select * from marts.fct_broken").fetchall() == [("b", 1)]


def test_a_table_spark_left_without_parquet_is_an_empty_typed_view_or_left_to_duckdb(connection):
    empty = SparkTable("fct_empty", "marts", "fct_empty", "incremental", "", (("run_id", "VARCHAR", ""),))
    untyped = SparkTable("fct_untyped", "marts", "fct_untyped", "incremental", "", (("run_id", "", ""),))
    assert publish_spark_tables(connection, [empty, untyped], ["b"]) == {"marts.fct_empty": "view"}
    assert connection.execute("select count(*) from marts.fct_empty").fetchone() == (0,)
    assert _comments(connection, "fct_empty") == {"run_id": ("VARCHAR", None)}


def test_biaswh_sql_reads_the_views_and_where_names_their_parquet(connection, tmp_path, monkeypatch):
    from biaswh.warehouse.database.sandbox import open_sandbox
    from biaswh.warehouse.settings.home import HOME_VARIABLE
    from biaswh.where_cli import where_lines

    publish_spark_tables(connection, [RUN_KEYED], ["b"])
    connection.execute("create table marts.dim_local as select 1 as item")
    connection.close()
    monkeypatch.setenv(HOME_VARIABLE, str(tmp_path))
    # The sandbox of `biaswh sql` reads the Parquet folder a view names, and still nothing else.
    with open_sandbox(["marts"]) as sandboxed:
        assert sandboxed.execute("select count(*) from fct_scores").fetchone() == (2,)
        for outside in (f"read_blob('{tmp_path / 'warehouse.duckdb'}')", "read_csv('/etc/hostname')"):
            with pytest.raises(duckdb.PermissionException):
                sandboxed.execute(f"select * from {outside}")
    lines = where_lines("marts")
    scores = tmp_path / "spark-warehouse" / "marts.db" / "fct_scores"
    assert f"marts.fct_scores  view   {scores}" in lines and "marts.dim_local   table  duckdb" in lines, lines
    assert lines[-1] == "2 relations, 1 read in place from Parquet"


def test_a_view_over_the_warehouse_folder_opens_no_path_to_the_warehouse_file(tmp_path, monkeypatch):
    from biaswh.warehouse.database.sandbox import open_sandbox
    from biaswh.warehouse.settings.home import HOME_VARIABLE

    home = tmp_path / "home"
    home.mkdir()
    connection = duckdb.connect(str(home / "warehouse.duckdb"))
    connection.execute(f"copy (select 1 as item) to '{home / 'items.parquet'}' (format parquet)")
    connection.execute(f"create view main.items as select * from read_parquet('{home}/*.parquet')")
    connection.close()
    monkeypatch.setenv(HOME_VARIABLE, str(home))
    with open_sandbox() as sandboxed:
        for query in ("select * from main.items", f"select * from read_blob('{home / 'warehouse.duckdb'}')"):
            with pytest.raises(duckdb.PermissionException):
                sandboxed.execute(query)
