"""`biaswh run studies/demo.toml --target cluster`: dbt-spark's thrift method against a Spark Thrift server.

The test starts the server from the pyspark package (tests/dbt_project/thrift_server.py: its own
JVM, metastore and table folder) on 127.0.0.1; this process starts no Spark. The raw Parquet and
the server's tables live in one shared folder both sides read. The run's marts and paired tests
equal the session's DuckDB demo run (run ids aside: two warehouses, two runs).
"""

from __future__ import annotations

import json

import pytest

from biaswh.warehouse.spark.marts import WAREHOUSE_LOCATION_VARIABLE
from biaswh.warehouse.spark.raw_export import RAW_LOCATION_VARIABLE
from tests.conftest import DEMO_STUDY, run_here
from tests.dbt_project.spark_equality import assert_equal, beside_duckdb_run, require_spark
from tests.dbt_project.thrift_server import start_thrift_server

# Its Spark is the server's JVM, not the test process's: under `make test-spark` it runs beside the
# modules sharing the in-process JVM, on the other worker (tests/scheduling.py).
pytestmark = [pytest.mark.spark(in_process=False), pytest.mark.dbt]


@pytest.fixture(scope="module")
def cluster_study(demo_warehouse, tmp_path_factory):
    """(home, printed output, the server) after the demo study ran with ``--target cluster``."""
    require_spark()
    shared = tmp_path_factory.mktemp("cluster")  # what the server and this machine both see
    server = start_thrift_server(shared / "server")
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("BIASWH_SPARK_HOST", "127.0.0.1")
            patch.setenv("BIASWH_SPARK_PORT", str(server.port))
            patch.setenv(WAREHOUSE_LOCATION_VARIABLE, str(server.warehouse))
            patch.setenv(RAW_LOCATION_VARIABLE, str(shared / "raw"))
            patch.setenv("BIASWH_EMBEDDING_CACHE", str(demo_warehouse.embedding_cache))
            home = shared / "warehouse"
            result = run_here("run", str(DEMO_STUDY), "--target", "cluster", "--no-site", home=home)
            yield home, result.stdout, server
    finally:
        server.stop()


@pytest.fixture
def both(cluster_study, demo_warehouse):
    """The cluster run's warehouse, with the DuckDB demo run's attached as ``duck``."""
    with beside_duckdb_run(cluster_study[0], demo_warehouse.home) as connection:
        yield connection


@pytest.mark.parametrize("relation", ["main.dialect_recall_at_k", "analysis.dialect_paired_tests"])
def test_the_dialect_results_equal_the_duckdb_runs(both, relation):
    assert assert_equal(both, relation, f"duck.{relation}", ignore=("run_id",)) > 0


def test_the_server_built_the_marts_and_duckdb_holds_its_rows(cluster_study, both):
    _, printed, server = cluster_study
    assert "dbt build (sources, Spark)" in printed and "dbt build (results, Spark)" in printed, printed
    from pyhive import hive

    connection = hive.connect(host="127.0.0.1", port=server.port, username="biaswh")
    try:
        cursor = connection.cursor()
        cursor.execute("show tables in marts")
        on_server = {row[1] for row in cursor.fetchall()}
    finally:
        connection.close()
    (run_id,) = both.execute("select run_id from raw.runs where kind = 'study'").fetchone()
    for mart in ("agg_dialect_recall_at_k", "fct_dialect_gold_ranks"):
        assert mart in on_server, sorted(on_server)
        spark_rows = f"read_parquet('{server.warehouse}/marts.db/{mart}/run_id={run_id}/*.parquet')"
        ours = f"(select * from marts.{mart} where run_id = '{run_id}')"
        assert assert_equal(both, ours, spark_rows, ignore=("run_id",)) > 0, mart


def test_the_run_records_the_cluster_target_and_its_clients_versions(both):
    from importlib import metadata

    query = "select parameters, package_versions from raw.runs where kind = 'study'"
    parameters, packages = both.execute(query).fetchone()
    assert json.loads(parameters)["build_target"] == "cluster"
    recorded = json.loads(packages)
    assert (recorded["PyHive"], recorded["dbt-spark"]) == (metadata.version("PyHive"), metadata.version("dbt-spark"))
