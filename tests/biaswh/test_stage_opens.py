"""A study run opens the warehouse once per stage, not once per step or check, and holds no
connection while dbt builds: the build opens the file itself (biaswh/study_builds.py, biaswh/pipeline.py)."""

from __future__ import annotations

from dataclasses import replace

import duckdb
import pytest

from biaswh import pipeline, study_builds
from biaswh.plugins import load_plugins
from biaswh.study_builds import selected_build
from biaswh.warehouse.database import connection
from biaswh.warehouse.dbt_build.runner import BuildSummary
from biaswh.warehouse.dbt_build.view_state import SelectedNode
from biaswh.warehouse.runs.study import build_selections, load_study
from biaswh.warehouse.settings.home import HOME_VARIABLE
from tests.conftest import DEMO_STUDY, copy_warehouse


@pytest.fixture
def opens(demo_warehouse, tmp_path, monkeypatch) -> list[str]:
    """A private copy of the demo warehouse as ``BIASWH_HOME``; each open of it is appended ("write" or "read")."""
    home = copy_warehouse(demo_warehouse.home, tmp_path / "warehouse")
    monkeypatch.setenv(HOME_VARIABLE, str(home))
    load_plugins()
    opened: list[str] = []
    real_connect = connection.connect

    def counted(*, read_only: bool = False, wait: bool = True):
        opened.append("read" if read_only else "write")
        return real_connect(read_only=read_only, wait=wait)

    monkeypatch.setattr(connection, "connect", counted)
    return opened


def _demo_run(home) -> str:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        return con.execute("select run_id from raw.runs where kind = 'study' order by started_at desc").fetchone()[0]


def test_a_results_build_opens_once_before_dbt_and_once_after_and_leaves_the_file_free_meanwhile(
    opens, monkeypatch, tmp_path
):
    home = tmp_path / "warehouse"
    run_id = _demo_run(home)
    at_build: list[tuple[int, list[str]]] = []

    def run_dbt_build(args, *, label, run_ids, **options):
        # Any connection of this process still open would refuse a read-only one to the same file.
        duckdb.connect(str(home / "warehouse.duckdb"), read_only=True).close()
        at_build.append((len(opens), list(run_ids)))
        return BuildSummary(label=label, seconds=0.0)

    def listed(selection_args):  # dbt's listing without dbt's parse: a view and a table (which is always built)
        view = SelectedNode("model.biaswh.stg_listed", "stg_listed", "model", "view", "staging", None)
        return [view, SelectedNode("model.biaswh.fct_listed", "fct_listed", "model", "table", "marts", None)]

    monkeypatch.setattr(pipeline, "run_dbt_build", run_dbt_build)
    monkeypatch.setattr(study_builds, "selection_nodes", listed)
    selection = build_selections(load_study(str(DEMO_STUDY)))["results"]

    line = selected_build(selection, "results", run_id=run_id)

    assert at_build == [(1, [run_id])]  # one open before dbt (none in dbt_build), none while it builds
    assert opens == ["write", "write"] and "dbt build (results)" in line


def test_the_analysis_steps_and_the_contract_views_share_one_open(opens, monkeypatch, tmp_path):
    run_id = _demo_run(tmp_path / "warehouse")
    seen = []
    monkeypatch.setitem(pipeline.ANALYSIS_STEPS, "first", lambda con, study, run: seen.append((con, run)))
    monkeypatch.setitem(pipeline.ANALYSIS_STEPS, "second", lambda con, study, run: seen.append((con, run)))
    study = replace(load_study(str(DEMO_STUDY), check_steps=False), analysis=["first", "second"])

    pipeline.analysis_stage(study, run_id)

    assert opens == ["write"]
    assert [run for _, run in seen] == [run_id, run_id] and seen[0][0] is seen[1][0]
    with duckdb.connect(str(tmp_path / "warehouse" / "warehouse.duckdb"), read_only=True) as con:
        assert con.execute("select count(*) from duckdb_views() where schema_name = 'main'").fetchone()[0] > 0
