"""A study build keeps a view it would only recreate as it is, and still runs that view's data tests."""

from __future__ import annotations

import json

import duckdb
import pytest

from biaswh.plugins import load_plugins
from biaswh.study_builds import STUDY_BUILD_ARGS
from biaswh.warehouse.dbt_build.view_state import selection_nodes, unchanged_views, view_fingerprint
from biaswh.warehouse.runs.study import build_selections, load_study
from biaswh.warehouse.settings.home import HOME_VARIABLE
from tests.conftest import DEMO_STUDY, copy_warehouse
from tests.fingerprints import run_fingerprints

pytestmark = pytest.mark.dbt


@pytest.fixture
def copy_home(demo_warehouse, tmp_path, monkeypatch):
    home = copy_warehouse(demo_warehouse.home, tmp_path / "warehouse")
    monkeypatch.setenv(HOME_VARIABLE, str(home))
    return home


def _results_nodes() -> list:
    load_plugins()  # the families' ingest sources and steps, which the demo config names
    selection = build_selections(load_study(DEMO_STUDY))["results"]
    return selection_nodes(["--select", selection, "--indirect-selection", "cautious"])


def _built(home) -> dict[str, str]:
    """The nodes of the last build and their status (run_results.json)."""
    results = json.loads((home / "dbt" / "target" / "run_results.json").read_text(encoding="utf-8"))
    return {row["unique_id"]: row["status"] for row in results["results"]}


def test_a_rerun_keeps_the_unchanged_views_and_runs_every_data_test_of_the_selection(copy_home, capsys):
    from biaswh.pipeline import run_study

    nodes = _results_nodes()
    views = {node.unique_id for node in nodes if node.is_view}
    tests = {node.unique_id for node in nodes if node.resource_type == "test"}
    assert views and tests
    with duckdb.connect(str(copy_home / "warehouse.duckdb"), read_only=True) as con:
        before = run_fingerprints(con)
    run_study(str(DEMO_STUDY), build_site=False)  # builds and rows only: no site drawn
    out = capsys.readouterr().out
    assert f"{len(views)} unchanged views kept" in out
    built = _built(copy_home)
    # No kept view was recreated; every data test the study's selection has ran and passed,
    # those reading the kept views included.
    assert not views & set(built)
    assert {uid for uid in built if uid.startswith("test.")} == tests
    assert all(status in ("pass", "success") for status in built.values())
    with duckdb.connect(str(copy_home / "warehouse.duckdb"), read_only=True) as con:
        after = run_fingerprints(con)
        new_run = con.execute("select run_id from raw.runs where kind = 'study' order by started_at desc").fetchone()[0]
        rows = con.execute("select count(*) from marts.fct_dialect_hits_at_k where run_id = ?", [new_run]).fetchone()[0]
    assert {k: v for k, v in after.items() if k in before} == before
    assert rows > 0  # a kept view shows the new run's rows


def test_a_view_changed_outside_a_study_build_is_built_again(copy_home, capsys):
    from biaswh.pipeline import run_study

    target = next(node for node in _results_nodes() if node.is_view and node.alias == "fct_dialect_hits_at_k")
    with duckdb.connect(str(copy_home / "warehouse.duckdb")) as con:
        original = con.execute(
            "select sql from duckdb_views() where schema_name = ? and view_name = ?", [target.schema, target.alias]
        ).fetchone()[0]
        # What a plain `dbt build` of an edited project would leave: the same name, another query.
        con.execute(f"create or replace view {target.schema}.{target.alias} as select 1 as is_hit")
    run_study(str(DEMO_STUDY), build_site=False)  # builds and rows only: no site drawn
    assert _built(copy_home)[target.unique_id] == "success"
    with duckdb.connect(str(copy_home / "warehouse.duckdb"), read_only=True) as con:
        restored = con.execute(
            "select sql from duckdb_views() where schema_name = ? and view_name = ?", [target.schema, target.alias]
        ).fetchone()[0]
    assert restored == original


def test_nothing_is_kept_from_another_project_state(demo_warehouse, monkeypatch):
    monkeypatch.setenv(HOME_VARIABLE, str(demo_warehouse.home))
    nodes = _results_nodes()
    with duckdb.connect(str(demo_warehouse.home / "warehouse.duckdb"), read_only=True) as con:
        kept = unchanged_views(con, nodes, view_fingerprint(STUDY_BUILD_ARGS))
        assert {node.unique_id for node in kept} == {node.unique_id for node in nodes if node.is_view}
        assert unchanged_views(con, nodes, view_fingerprint([*STUDY_BUILD_ARGS, "--vars", "{x: 1}"])) == []


def test_a_selection_lists_the_seeds_its_data_tests_read(demo_warehouse, monkeypatch):
    # Named one by one, a build of a kept view's selection must still load the seeds it tests.
    monkeypatch.setenv(HOME_VARIABLE, str(demo_warehouse.home))
    selection = build_selections(load_study(DEMO_STUDY.parent / "demo_evaluation.toml"))["results"]
    nodes = selection_nodes(["--select", selection, "--indirect-selection", "cautious"])
    seeds = {node.name for node in nodes if node.resource_type == "seed"}
    tested = {node.unique_id.split(".")[2] for node in nodes if node.resource_type == "test"}
    assert "evaluation_alert_thresholds" in seeds
    assert any("evaluation_alert_thresholds" in name for name in tested)
