"""Choosing the Spark a study builds on: the profile's Spark targets, by name, from the CLI or the study config.

No JVM starts here: every refusal comes before any work (tests/dbt_project/test_spark_cluster.py
runs the cluster target against a Thrift server).
"""

from __future__ import annotations

import socket

import pytest
import yaml

from biaswh.plugins import load_plugins
from biaswh.study_builds import check_spark_target, run_record
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.registry import package_versions
from biaswh.warehouse.runs.study import load_study
from biaswh.warehouse.settings.home import DBT_PROJECT_DIR
from biaswh.warehouse.spark.marts import WAREHOUSE_LOCATION_VARIABLE
from biaswh.warehouse.spark.targets import (
    SPARK_TARGET_VARIABLE,
    build_targets,
    spark_method,
    spark_target_name,
    spark_targets,
    thrift_address,
)
from tests.conftest import DEMO_STUDY, run_here


def _outputs() -> dict:
    return yaml.safe_load((DBT_PROJECT_DIR / "profiles.yml").read_text(encoding="utf-8"))["bias_warehouse"]["outputs"]


def test_the_profile_offers_spark_in_process_and_a_thrift_cluster():
    assert spark_targets() == {"spark": "session", "cluster": "thrift"}
    assert build_targets() == ("local", "spark", "cluster")


def test_the_cluster_session_gets_the_settings_our_sql_needs_in_the_spelling_a_thrift_server_applies():
    # A Spark Thrift server applies a session setting only as set:hiveconf:<key>: a plain key is
    # dropped without a word, and Spark then reads '\s' as 's' (escapedStringLiterals off).
    outputs = _outputs()
    cluster = outputs["cluster"]["server_side_parameters"]
    assert all(key.startswith("set:hiveconf:") for key in cluster), cluster
    applied = {key.removeprefix("set:hiveconf:"): value for key, value in cluster.items()}
    session = outputs["spark"]["server_side_parameters"]
    for key in ("spark.sql.parser.escapedStringLiterals", "spark.sql.session.timeZone"):
        assert applied[key] == session[key], key
    # dbt-spark sets ANSI mode off as a plain key, which the server drops: the profile says it.
    assert applied["spark.sql.ansi.enabled"] == "false"


def test_the_build_step_reads_the_chosen_target_from_the_environment(monkeypatch):
    monkeypatch.delenv(SPARK_TARGET_VARIABLE, raising=False)
    assert spark_target_name() == "spark" and spark_method() == "session"
    monkeypatch.setenv(SPARK_TARGET_VARIABLE, "cluster")
    assert spark_target_name() == "cluster" and spark_method() == "thrift"
    monkeypatch.setenv(SPARK_TARGET_VARIABLE, "local")
    with pytest.raises(UserError, match="BIASWH_SPARK_TARGET=local: not a Spark target"):
        spark_target_name()


def test_a_cluster_run_records_its_target_and_the_thrift_clients_versions():
    from importlib import metadata

    load_plugins()
    study = load_study(str(DEMO_STUDY))
    parameters, engines = run_record(study, target="cluster")
    assert parameters["build_target"] == "cluster" and engines == ("spark_thrift",)
    assert run_record(study, target="spark")[1] == ("spark",)
    recorded = package_versions(engines)
    assert (recorded["PyHive"], recorded["dbt-spark"]) == (metadata.version("PyHive"), metadata.version("dbt-spark"))


def test_a_cluster_target_without_the_servers_table_folder_or_server_is_refused_in_one_line(monkeypatch):
    monkeypatch.delenv(WAREHOUSE_LOCATION_VARIABLE, raising=False)
    with pytest.raises(UserError) as refused:
        check_spark_target("cluster")
    assert str(refused.value).startswith(f"--target cluster: set {WAREHOUSE_LOCATION_VARIABLE}")
    monkeypatch.setenv(WAREHOUSE_LOCATION_VARIABLE, "/srv/spark/warehouse")
    monkeypatch.setenv("BIASWH_SPARK_HOST", "127.0.0.1")
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        port = listening.getsockname()[1]
        monkeypatch.setenv("BIASWH_SPARK_PORT", str(port))
        assert thrift_address() == ("127.0.0.1", port)  # the profile's host and port, as dbt renders them
        listening.listen()
        check_spark_target("cluster")  # PyHive installed, the folder named, a server listening
    with pytest.raises(UserError) as refused:  # the port closed: nobody answers there now
        check_spark_target("cluster")
    assert str(refused.value).startswith(f"--target cluster: no Spark Thrift server answers at 127.0.0.1:{port}")


def test_an_unknown_target_on_the_command_line_is_refused_by_the_parser(tmp_path):
    result = run_here("run", str(DEMO_STUDY), "--target", "nowhere", home=tmp_path / "warehouse", check=False)
    assert result.returncode == 2
    assert "argument --target: nowhere: not a target of dbt_project/profiles.yml; choose local, spark, cluster" in (
        result.stderr
    )
    assert not (tmp_path / "warehouse" / "warehouse.duckdb").exists()


def test_the_study_config_picks_the_target_and_an_unknown_one_exits_2_before_any_work(tmp_path, monkeypatch):
    monkeypatch.delenv(WAREHOUSE_LOCATION_VARIABLE, raising=False)
    text = DEMO_STUDY.read_text(encoding="utf-8")
    (tmp_path / "demo_data").symlink_to(DEMO_STUDY.parent / "demo_data")  # the config's relative paths
    for target, expected in (
        ("nowhere", "build_target = nowhere: not a target of dbt_project/profiles.yml; choose local, spark, cluster"),
        ("cluster", f"build_target = cluster: set {WAREHOUSE_LOCATION_VARIABLE}"),
    ):
        config = tmp_path / f"{target}.toml"
        config.write_text(text + f'\n[compute]\nbuild_target = "{target}"\n', encoding="utf-8")
        home = tmp_path / target
        result = run_here("run", str(config), home=home, check=False)
        assert result.returncode == 2, result.stderr
        (line,) = result.stderr.strip().splitlines()
        assert expected in line, line
        assert not (home / "warehouse.duckdb").exists()
