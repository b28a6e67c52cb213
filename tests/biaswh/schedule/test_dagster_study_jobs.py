"""A study config as a Dagster job: the pipeline's stages as its ops, dbt's builds through dagster-dbt.

The evaluation demo's job runs in a copy of the session's warehouse after that study
(:func:`tests.dbt_project.conftest.demo_evaluation`, prebuilt under `make test`), as a user's next
run of it: its sources build is skipped (unchanged inputs) and its results build goes through
dagster-dbt, with no first build of the whole project in an empty warehouse.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from biaswh.schedule import extra
from biaswh.warehouse.database.connection import open_warehouse
from biaswh.warehouse.runs.sub_runs import sub_run_ids
from biaswh.warehouse.settings.home import HOME_VARIABLE
from tests.conftest import copy_warehouse
from tests.dbt_project.conftest import demo_vectors

STUDIES = Path(__file__).resolve().parents[3] / "studies"


def test_a_missing_extra_is_one_line_naming_the_make_target(monkeypatch):
    real = extra.importlib.util.find_spec
    monkeypatch.setattr(extra.importlib.util, "find_spec", lambda name: None if name == "dagster_dbt" else real(name))
    assert extra.missing_dagster_extra() == (
        "Dagster needs the dagster extra (dagster-dbt missing): make dagster (requirements-dagster.lock)"
    )


def test_without_the_extra_the_definitions_module_refuses_in_one_line(monkeypatch):
    import importlib
    import sys

    from biaswh.warehouse.errors import UserError

    real = extra.importlib.util.find_spec
    monkeypatch.setattr(extra.importlib.util, "find_spec", lambda name: None if name == "dagster" else real(name))
    monkeypatch.delitem(sys.modules, "biaswh.schedule.definitions", raising=False)
    with pytest.raises(UserError, match=r"^Dagster needs the dagster extra \(dagster missing\): make dagster"):
        importlib.import_module("biaswh.schedule.definitions")


def test_every_study_config_is_a_job_and_the_asset_graph_is_dbts_lineage(warehouse_home, monkeypatch):
    from dagster import AssetKey

    from biaswh.schedule.definitions import STUDIES_VARIABLE, defs

    monkeypatch.setenv(STUDIES_VARIABLE, str(STUDIES))
    definitions = defs()
    names = {job.name for job in definitions.jobs}
    assert {"study_demo_evaluation", "study_demo_weat", "study_demo_recsys"} <= names
    assert not any("audit" in name for name in names)  # an audit config holds no [study]
    job = definitions.get_job_def("study_demo_evaluation")
    assert [node.name for node in job.nodes_in_topological_order] == [
        "start",
        "ingest",
        "dbt_build_sources",
        "jobs",
        "dbt_build_results",
        "analysis",
        "dashboards",
    ]
    graph = definitions.get_repository_def().asset_graph
    parents = graph.get(AssetKey(["marts", "fct_evaluation_alert_checks"])).parent_keys
    assert {
        AssetKey(["marts", "agg_evaluation_metrics_at_k"]),
        AssetKey(["staging", "stg_evaluation__thresholds"]),
    } <= parents


@pytest.mark.dbt
def test_the_evaluation_demo_runs_as_a_dagster_job_and_records_what_biaswh_run_records(
    demo_evaluation, tmp_path, monkeypatch
):
    from dagster import AssetKey, DagsterInstance

    from biaswh.plugins import load_plugins
    from biaswh.schedule.study_jobs import study_job

    warehouse_home = copy_warehouse(demo_evaluation[0], tmp_path / "warehouse")  # its pages not copied
    monkeypatch.setenv(HOME_VARIABLE, str(warehouse_home))
    load_plugins()
    with demo_vectors(demo_evaluation[0], tmp_path):  # the first run's vectors, as a user's next run reads them
        result = study_job(STUDIES / "demo_evaluation.toml").execute_in_process(instance=DagsterInstance.ephemeral())
    assert result.success
    run_id = result.output_for_node("start")
    with open_warehouse(read_only=True) as con:
        kind, status, stages = con.execute(
            "select kind, status, stage_seconds from raw.runs where run_id = ?", [run_id]
        ).fetchone()
        alert_rows = con.execute(
            "select count(*) from marts.fct_evaluation_alert_checks where list_contains(?, run_id)",
            [sub_run_ids(con, run_id)],
        ).fetchone()[0]
    assert (kind, status) == ("study", "succeeded")
    assert {"ingest", "dbt build (sources)", "jobs", "dbt build (results)", "analysis"} <= set(json.loads(stages))
    assert alert_rows > 0
    built = {event.asset_key for event in result.get_asset_materialization_events()}
    assert AssetKey(["marts", "fct_evaluation_alert_checks"]) in built  # materialized through dagster-dbt
    assert (warehouse_home / "site" / "index.html").is_file()


def test_a_failing_stage_fails_its_op_and_marks_the_study_run_failed(warehouse_home, tmp_path):
    from dagster import DagsterInstance, in_process_executor

    from biaswh.plugins import load_plugins
    from biaswh.schedule.study_jobs import study_job

    load_plugins()
    unknown = tmp_path / "demo_qrels.csv"
    unknown.write_text("query_id,doc_id,relevance\n0,99999,2\n", encoding="utf-8")  # a document the corpus lacks
    text = (STUDIES / "demo_evaluation.toml").read_text(encoding="utf-8")
    text = text.replace('path = "demo_data/evaluation/demo_qrels.csv"', f'path = "{unknown}"')
    config = tmp_path / "demo_evaluation.toml"
    config.write_text(text.replace('"demo_data/', f'"{STUDIES}/demo_data/'), encoding="utf-8")
    job = study_job(config)
    assert job.executor_def is in_process_executor  # one process: DuckDB has one writer
    result = job.execute_in_process(instance=DagsterInstance.ephemeral(), raise_on_error=False)
    assert not result.success
    assert [event.node_name for event in result.get_step_failure_events()] == ["ingest"]
    run_id = result.output_for_node("start")
    with open_warehouse(read_only=True) as con:
        status, message = con.execute("select status, message from raw.runs where run_id = ?", [run_id]).fetchone()
    assert status == "failed" and "99999" in message
    assert "dbt_build_sources" not in {event.node_name for event in result.all_events if event.is_step_success}
