"""`biaswh run studies/demo.toml --target spark`: the marts come from Spark and equal DuckDB's run.

The study runs in this process (one SparkSession, one JVM, shared with the other Spark
tests) in a fresh warehouse; its recall@k mart and its paired tests are compared with the
session's DuckDB demo run (run ids aside: two warehouses, two runs).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from biaswh.warehouse.settings.home import HOME_VARIABLE
from tests.conftest import DEMO_STUDY
from tests.dbt_project.spark_equality import (
    assert_equal,
    beside_duckdb_run,
    comparable_page,
    first_difference,
    require_spark,
)

pytestmark = [pytest.mark.spark, pytest.mark.dbt]


@pytest.fixture(scope="module")
def spark_study(demo_warehouse, tmp_path_factory):
    """(home, site index, printed output) of the demo study run with ``target='spark'``."""
    require_spark()
    from biaswh.pipeline import run_study

    home = tmp_path_factory.mktemp("spark-study") / "warehouse"
    printed = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(printed):
        patch.setenv(HOME_VARIABLE, str(home))
        patch.setenv("BIASWH_EMBEDDING_CACHE", str(demo_warehouse.embedding_cache))
        index = run_study(str(DEMO_STUDY), target="spark")
    return home, index, printed.getvalue()


@pytest.fixture
def both(spark_study, demo_warehouse):
    """The Spark run's warehouse, with the DuckDB demo run's attached as ``duck``."""
    with beside_duckdb_run(spark_study[0], demo_warehouse.home) as connection:
        yield connection


def test_recall_at_k_and_the_paired_tests_equal_the_duckdb_run(both):
    assert assert_equal(both, "main.dialect_recall_at_k", "duck.main.dialect_recall_at_k", ignore=("run_id",)) > 0
    analysed = "analysis.dialect_paired_tests"
    assert assert_equal(both, analysed, f"duck.{analysed}", ignore=("run_id",)) > 0


def test_the_run_keyed_marts_are_sparks_rows(spark_study, both):
    _, _, printed = spark_study
    from biaswh.warehouse.spark.marts import table_location
    from biaswh.warehouse.spark.target import SparkTable

    assert "dbt build (results, Spark)" in printed and "dbt build (sources, Spark)" in printed, printed
    (run_id,) = both.execute("select run_id from raw.runs where kind = 'study'").fetchone()
    assert both.execute("select status from raw.runs where run_id = ?", [run_id]).fetchone() == ("succeeded",)
    for mart in ("agg_dialect_recall_at_k", "fct_dialect_gold_ranks", "fct_evaluation_relevant_ranks"):
        location = table_location(SparkTable(mart, "marts", mart, "incremental"))
        spark_rows = f"read_parquet('{location}/run_id={run_id}/*.parquet')"
        ours = f"(select * from marts.{mart} where run_id = '{run_id}')"
        assert assert_equal(both, ours, spark_rows, ignore=("run_id",)) > 0, mart
    # DuckDB-only models read what Spark built: the run list the dashboards show.
    assert both.execute("select count(*) from marts.dim_runs where run_id = ?", [run_id]).fetchone()[0] == 1


def test_the_run_records_its_build_target_and_sparks_package_versions(spark_study, both):
    from importlib import metadata

    run = both.execute("select parameters, package_versions from raw.runs where kind = 'study'").fetchone()
    parameters, packages = run
    assert json.loads(parameters)["build_target"] == "spark"
    recorded = json.loads(packages)
    assert (recorded["pyspark"], recorded["dbt-spark"]) == (metadata.version("pyspark"), metadata.version("dbt-spark"))


# A JSON quote on a page: in HTML text, or in the CSV of the export data (doubled, backslashed).
_QUOTE = r'(?:&quot;|\\"\\"|\\"|")'
_SPARK_RECORD = [
    rf"{_QUOTE}build_target{_QUOTE}: ?{_QUOTE}spark{_QUOTE}, ?",
    rf"{_QUOTE}(?:dbt-spark|pyspark){_QUOTE}: ?{_QUOTE}[0-9][^,&\\\"]*{_QUOTE}, ?",
    r", (?:dbt-spark|pyspark) [0-9][^,<]*",  # the packages line of a run's details
]


def _without_the_spark_record(html: str) -> str:
    """A page of the Spark run without what only a Spark run records: its build target and Spark's packages."""
    for pattern in _SPARK_RECORD:
        html = re.sub(pattern, "", html)
    return html


def test_every_page_of_the_site_reads_as_the_duckdb_runs(spark_study, demo_warehouse):
    # Two warehouses, two runs: run ids, commits and timestamps differ, and the run list's details
    # of the Spark run name Spark; every other character of every page (findings, tables, the
    # charts' data) is the same.
    _, index, _ = spark_study
    ours, theirs = index.parent, demo_warehouse.home / "site"
    pages = sorted(page.name for page in theirs.glob("*.html"))
    assert pages == sorted(page.name for page in ours.glob("*.html")) and "dialect.html" in pages, pages
    for page in pages:
        spark_page = comparable_page(_without_the_spark_record((ours / page).read_text(encoding="utf-8")))
        duckdb_page = comparable_page((theirs / page).read_text(encoding="utf-8"))
        assert spark_page == duckdb_page, f"{page} {first_difference(spark_page, duckdb_page)}"


def test_sparks_jvm_writes_its_console_to_the_log_not_the_terminal(spark_study):
    # The JVM's start-up notes and its WARN lines (one per statement dbt-spark sends) go to the
    # dbt log folder of the warehouse that started it; the terminal shows our lines only.
    from pyspark import SparkContext

    console = Path(f"/proc/{SparkContext._gateway.proc.pid}/fd")
    if not console.exists():
        pytest.skip("no /proc here")
    log = Path(os.readlink(console / "1"))
    assert log.name == "spark-jvm.log" and Path(os.readlink(console / "2")) == log
    assert "log4j" in log.read_text(encoding="utf-8")  # Spark's start-up note
    # Started as pyspark starts it: the profile's settings are spark-submit options (where
    # spark.driver.memory, say, counts).
    command = (console.parent / "cmdline").read_bytes().split(b"\0")
    assert b"spark.sql.parser.escapedStringLiterals=true" in command and b"spark.master=local[2]" in command
    assert b"spark.driver.memory=2g" in command  # the heap every demo study's marts need (Spark's default: 1g)


def test_the_warehouse_folder_moved_elsewhere_reads_its_own_lake(spark_study, tmp_path):
    # The folder is copied elsewhere and the original renamed away (the JVM's files in it stay
    # open): biaswh sql, biaswh where, the contract views and the site read the same rows there.
    from biaswh.warehouse.database.connection import open_warehouse
    from biaswh.warehouse.settings.home import home_set_to
    from biaswh.where_cli import where_lines
    from tests.conftest import run_here

    home, index, _ = spark_study
    query = "select * from main.dialect_recall_at_k order by all"
    asked = ("sql", "select retriever, k, count(*) from marts.agg_dialect_recall_at_k group by all order by all")
    with home_set_to(home):
        with open_warehouse(read_only=True) as connection:
            before = connection.execute(query).fetchall()
            named_here = connection.execute(
                "select count(*) from duckdb_views() where sql like '%read_parquet(''~/spark/warehouse/%'"
            ).fetchone()[0]
        printed = run_here(*asked, home=home).stdout
        lines_before = where_lines()
    moved = tmp_path / "moved elsewhere" / "warehouse"
    shutil.copytree(home, moved, ignore=shutil.ignore_patterns("site", "*.lck"))
    away = home.with_name(home.name + "-away")
    home.rename(away)
    try:
        with home_set_to(moved), open_warehouse(read_only=True) as connection:
            assert connection.execute(query).fetchall() == before and before
        assert run_here(*asked, home=moved).stdout == printed
        with home_set_to(moved):
            lines = where_lines()
        assert lines == [line.replace(str(home), str(moved)) for line in lines_before]
        assert str(home) not in "\n".join(lines)
        # The session's Spark folder is the first warehouse's it built in: there, views name ~/.
        assert named_here > 0 or not any(str(home) in line for line in lines_before)
        run_here("dashboards", home=moved)
        for page in sorted(index.parent.glob("*.html")):
            ours = comparable_page((moved / "site" / page.name).read_text(encoding="utf-8"))
            theirs = comparable_page(page.read_text(encoding="utf-8"))
            assert ours == theirs, f"{page.name} {first_difference(ours, theirs)}"
    finally:
        away.rename(home)
