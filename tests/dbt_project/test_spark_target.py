"""The demo study's dialect marts built on Spark (dbt-spark, session mode) equal DuckDB's.

One warehouse runs studies/demo.toml on DuckDB; its raw rows go to Parquet, Spark builds the
dialect marts and their upstream models from them with the data tests, and every mart is
compared with DuckDB's: EXCEPT ALL both ways on the exact columns, floats within 1e-9
relative. dbt runs in this process, so the one SparkSession (one JVM) serves every build.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess

import duckdb
import pytest

from tests.conftest import DEMO_STUDY, run_here
from warehouse.settings import HOME_VARIABLE

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

# fct_dialect_error_examples builds on Spark too (equal to DuckDB's when measured), but its
# per-row run parameters cost 85-200 s there: left out to keep the Spark suite short.
DIALECT_MARTS = ["+agg_dialect_paired_outcomes", "+agg_dialect_recall_at_k", "+agg_dialect_rank_summary"]
FLOAT_TYPES = ("DOUBLE", "FLOAT", "DECIMAL", "REAL")


def _java_and_pyspark() -> str | None:
    """Why Spark cannot run here, or None."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark missing: pip install -e '.[spark]' (make spark)"
    if not shutil.which("java"):
        return "java missing: apt-get install openjdk-17-jre-headless (make spark)"
    if subprocess.run(["java", "-version"], capture_output=True).returncode != 0:
        return "java does not start"
    return None


@pytest.fixture(scope="module")
def spark_build(tmp_path_factory):
    """(home, build summary, names of the marts built) after the demo study on DuckDB and the dialect marts on Spark."""
    missing = _java_and_pyspark()
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI cannot run the Spark tests: {missing}")
        pytest.skip(missing)
    from warehouse import spark_target
    from warehouse.connection import connect

    home = tmp_path_factory.mktemp("spark") / "warehouse"
    run_here("run", str(DEMO_STUDY), home=home)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(HOME_VARIABLE, str(home))
        connection = connect(read_only=True)
        try:
            tables = spark_target.export_raw(connection)
        finally:
            connection.close()
        spark_target.register_raw_tables(tables)
        summary = spark_target.run_spark_build(["--select", *DIALECT_MARTS, "--indirect-selection", "cautious"])
        from pyspark.sql import SparkSession

        session = SparkSession.getActiveSession()
        marts = sorted(row.tableName for row in session.sql("show tables in marts").collect())
        yield home, summary, marts


def _columns(connection, relation: str) -> dict[str, str]:
    return {name: kind for name, kind, *_ in connection.execute(f"describe select * from {relation}").fetchall()}


def _assert_equal(connection, duck: str, spark: str) -> int:
    """Assert equal contents (column names, rows, floats within 1e-9 relative); return the row count."""
    columns = _columns(connection, duck)
    assert set(columns) == set(_columns(connection, spark)), (duck, columns, _columns(connection, spark))
    floats = sorted(c for c, kind in columns.items() if kind.startswith(FLOAT_TYPES))
    exact = sorted(c for c in columns if c not in floats)
    exact_list = ", ".join(f'"{c}"' for c in exact)
    for left, right in ((duck, spark), (spark, duck)):
        missing = connection.execute(
            f"select count(*) from (select {exact_list} from {left} except all select {exact_list} from {right})"
        ).fetchone()[0]
        assert missing == 0, f"{missing} rows of {left} are not in {right}"
    ordered = ", ".join([*(f'"{c}"' for c in exact), *(f'"{c}"::double' for c in floats)])
    rows_duck = connection.execute(f"select {ordered} from {duck} order by all").fetchall()
    rows_spark = connection.execute(f"select {ordered} from {spark} order by all").fetchall()
    assert len(rows_duck) == len(rows_spark)
    for row_duck, row_spark in zip(rows_duck, rows_spark):
        for name, a, b in zip(floats, row_duck[len(exact) :], row_spark[len(exact) :]):
            same = (a is None and b is None) or (
                a is not None and b is not None and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
            )
            assert same, f"{duck}.{name}: DuckDB {a} vs Spark {b} in {row_duck[: len(exact)]}"
    return len(rows_duck)


def test_the_dialect_marts_and_their_data_tests_pass_on_spark(spark_build):
    _, summary, marts = spark_build
    assert summary.failures == []
    assert summary.counts.get("pass", 0) >= 20, summary.line  # the data tests and unit tests ran
    expected = {"agg_dialect_paired_outcomes", "agg_dialect_recall_at_k"}
    assert expected <= set(marts), marts


def test_every_spark_mart_equals_duckdbs(spark_build):
    home, _, marts = spark_build
    from pyspark.sql import SparkSession

    session = SparkSession.getActiveSession()
    connection = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)
    try:
        counts = {}
        for mart in marts:
            connection.register(f"spark_{mart}", session.table(f"marts.{mart}").toArrow())
            counts[mart] = _assert_equal(connection, f"marts.{mart}", f"spark_{mart}")
        assert counts["agg_dialect_recall_at_k"] > 0 and counts["agg_dialect_paired_outcomes"] > 0, counts
    finally:
        connection.close()


def test_duckdb_reads_the_spark_mart_parquet(spark_build):
    home, _, _ = spark_build
    from warehouse.spark_target import spark_mart_relation

    connection = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)
    try:
        relation = spark_mart_relation("agg_dialect_recall_at_k")
        assert _assert_equal(connection, "marts.agg_dialect_recall_at_k", relation) > 0
    finally:
        connection.close()


def test_a_second_build_in_the_same_process_keeps_the_session_and_every_run(spark_build):
    # No new run: the incremental build selects no rows, and insert_overwrite by run_id then
    # replaces no partition (delete+insert's semantics), in the JVM the first build started.
    home, _, _ = spark_build
    from pyspark.sql import SparkSession

    from warehouse.spark_target import run_spark_build

    session = SparkSession.getActiveSession()
    before = session.table("marts.agg_dialect_recall_at_k").count()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(HOME_VARIABLE, str(home))
        summary = run_spark_build(["--select", "agg_dialect_recall_at_k", "--indirect-selection", "cautious"])
    assert summary.failures == [] and summary.counts.get("success", 0) == 1, summary.line
    assert SparkSession.getActiveSession() is session
    assert session.table("marts.agg_dialect_recall_at_k").count() == before > 0
