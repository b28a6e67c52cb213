"""The demo studies' marts built on Spark (dbt-spark, session mode) equal DuckDB's.

One warehouse (a copy of the session's demo site: every `studies/demo*.toml` run on DuckDB)
sends its raw rows to Parquet; Spark builds the dialect, evaluation, WEAT, silent-bias and
recsys marts and their upstream models (seeds included) from them with the data and unit
tests, and every mart is compared with DuckDB's: EXCEPT ALL both ways on the exact columns,
floats within 1e-9 relative. dbt runs in this process, so the one SparkSession (one JVM)
serves every build.
"""

from __future__ import annotations

import duckdb
import pytest

from biaswh.warehouse.settings.home import HOME_VARIABLE
from biaswh.warehouse.spark.raw_registration import register_raw_tables
from tests.conftest import copy_warehouse
from tests.dbt_project.spark_equality import assert_equal, require_spark

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

DIALECT_MARTS = [
    "+agg_dialect_paired_outcomes",
    "+agg_dialect_recall_at_k",
    "+agg_dialect_rank_summary",
    "+fct_dialect_error_examples",
]
# The SQuAD normalisation and everything reading it (Unicode whitespace regex, sha256), and
# the demo evaluation's drift series: per-query metrics, their means (unpivot), latency
# percentiles (quantile_cont / percentile), the fusion sweep and choice, the overlap (a list
# literal unnested) and the alert checks reading all of them.
PORTED_MARTS = [
    "+fct_query_variants",
    "+fct_pair_gold_documents",
    "+dim_corpus_documents",
    "+fct_evaluation_qrels",
    "+fct_evaluation_fusion_choice",
    "+fct_evaluation_alert_checks",
    "+agg_evaluation_overlap",
]
# The WEAT marts (ordered list aggregates, any_value of a group): from demo_weat (word vectors
# and a sentence encoder, missing words).
WEAT_MARTS = ["+fct_weat_results", "+fct_weat_metrics", "+dim_weat_test_words", "+dim_weat_embeddings"]
# The silent-bias marts (RE2 patterns given their meaning in Java regex, list lambdas, ordered
# string aggregates, the seeds): from demo_silent_bias (two models, 10 vignettes, counterfactual
# pairs). demo_rule_variants adds its rule-variant query set to the dialect marts above.
SILENT_BIAS_MARTS = [
    "+fct_silent_bias_detections",
    "+agg_silent_bias_counts",
    "+fct_silent_bias_rule_disagreements",
    "+fct_silent_bias_pair_outcomes",
    "+dim_silent_bias_models",
]
# The recsys marts (* exclude, list lambdas over a run parameter, glob, the five-level unions
# with their significance markers): from demo_recsys (synthetic posts, computed results only).
RECSYS_MARTS = [
    "+agg_recsys_bias",
    "+agg_recsys_effect_sizes",
    "+agg_recsys_directional_bias",
    "+agg_recsys_feature_importance",
    "+fct_recsys_pool_vs_recommended",
    "+fct_recsys_post_values",
]


@pytest.fixture(scope="module")
def spark_build(tmp_path_factory, demo_site):
    """(home, build summary, names of the marts built) after every demo study on DuckDB and their marts on Spark."""
    require_spark()
    from biaswh.warehouse.database.connection import connect
    from biaswh.warehouse.spark import raw_export
    from biaswh.warehouse.spark import target as spark_target

    # The session's demo site (prebuilt beside the workers under `make test`), copied: every demo
    # study's rows, without paying for their runs again.
    home = copy_warehouse(demo_site.parent, tmp_path_factory.mktemp("spark") / "warehouse")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(HOME_VARIABLE, str(home))
        connection = connect(read_only=True)
        try:
            tables = raw_export.export_raw(connection)
        finally:
            connection.close()
        register_raw_tables(tables)
        summary, tables = spark_target.build_on_spark(
            [
                "--select",
                *DIALECT_MARTS,
                *PORTED_MARTS,
                *WEAT_MARTS,
                *SILENT_BIAS_MARTS,
                *RECSYS_MARTS,
                "--indirect-selection",
                "cautious",
            ]
        )
        from pyspark.sql import SparkSession

        # This build's tables and every view (views read the current tables): another test of
        # the session may have built other marts in the same Spark warehouse.
        views = [t.name for t in SparkSession.getActiveSession().catalog.listTables("marts") if t.tableType == "VIEW"]
        marts = sorted({t.name for t in tables if t.schema == "marts"} | set(views))
        yield home, summary, marts


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
    connection = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True, config={"home_directory": str(home)})
    try:
        counts = {}
        for mart in marts:
            connection.register(f"spark_{mart}", session.table(f"marts.{mart}").toArrow())
            counts[mart] = assert_equal(connection, f"marts.{mart}", _these_runs(connection, f"spark_{mart}"))
        dialect = ["agg_dialect_recall_at_k", "agg_dialect_paired_outcomes", "fct_dialect_error_examples"]
        assert all(counts[mart] > 0 for mart in dialect), counts
        assert counts["fct_evaluation_query_metrics"] > 0 and counts["dim_corpus_documents"] > 0, counts
        assert counts["fct_query_variants"] > 0 and counts["fct_pair_gold_documents"] > 0, counts
        evaluation = ["agg_evaluation_latency", "agg_evaluation_overlap", "fct_evaluation_fusion_choice"]
        assert all(counts[mart] > 0 for mart in [*evaluation, "fct_evaluation_alert_checks"]), counts
        weat = ["fct_weat_results", "fct_weat_metrics", "agg_weat_set_coverage", "dim_weat_tests"]
        assert all(counts[mart] > 0 for mart in weat), counts
        silent_bias = [
            "fct_silent_bias_detections",
            "agg_silent_bias_counts",
            "fct_silent_bias_rule_disagreements",
            "fct_silent_bias_counterfactual_pairs",
            "fct_silent_bias_pair_outcomes",
            "dim_silent_bias_models",
        ]
        assert all(counts[mart] > 0 for mart in silent_bias), counts
        assert all(counts[selector.lstrip("+")] > 0 for selector in RECSYS_MARTS), counts
    finally:
        connection.close()


def _these_runs(connection, relation: str) -> str:
    """``relation``'s rows of this warehouse's runs (the Spark warehouse may hold other tests' runs)."""
    if "run_id" not in {row[0] for row in connection.execute(f"describe select * from {relation}").fetchall()}:
        return relation
    return f"(select * from {relation} where run_id in (select run_id from raw.runs))"


def test_duckdb_reads_the_spark_mart_parquet(spark_build):
    home, _, _ = spark_build
    from biaswh.warehouse.spark.marts import table_location
    from biaswh.warehouse.spark.target import SparkTable

    connection = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True, config={"home_directory": str(home)})
    try:
        location = table_location(SparkTable("agg_dialect_recall_at_k", "marts", "agg_dialect_recall_at_k", "table"))
        relation = f"read_parquet('{location}/**/*.parquet', hive_partitioning = true)"
        assert assert_equal(connection, "marts.agg_dialect_recall_at_k", _these_runs(connection, relation)) > 0
    finally:
        connection.close()


def test_a_second_build_in_the_same_process_keeps_the_session_and_every_run(spark_build):
    # No new run: the incremental build selects no rows, and insert_overwrite by run_id then
    # replaces no partition (delete+insert's semantics), in the JVM the first build started.
    home, _, _ = spark_build
    from pyspark.sql import SparkSession

    from biaswh.warehouse.spark.target import run_spark_build

    session = SparkSession.getActiveSession()
    before = session.table("marts.agg_dialect_recall_at_k").count()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(HOME_VARIABLE, str(home))
        summary = run_spark_build(["--select", "agg_dialect_recall_at_k", "--indirect-selection", "cautious"])
    assert summary.failures == [] and summary.counts.get("success", 0) == 1, summary.line
    assert SparkSession.getActiveSession() is session
    assert session.table("marts.agg_dialect_recall_at_k").count() == before > 0


def test_every_seed_loads_on_spark_with_its_declared_types(warehouse_home):
    # Spark refuses a bare varchar (DATATYPE_MISSING_SIZE): each seed names Spark's string there.
    require_spark()
    from pyspark.sql import SparkSession

    from biaswh.warehouse.spark import target as spark_target

    summary, _ = spark_target.build_on_spark(["--select", "resource_type:seed"], label="seeds")
    assert summary.failures == [] and summary.counts.get("success", 0) == 3, summary.line
    thresholds = SparkSession.builder.getOrCreate().table("staging.evaluation_alert_thresholds")
    assert dict(thresholds.dtypes) == {
        "metric": "string",
        "k": "int",
        "retriever": "string",
        "direction": "string",
        "threshold": "double",
        "severity": "string",
        "description": "string",
    }
    assert thresholds.count() == 7
