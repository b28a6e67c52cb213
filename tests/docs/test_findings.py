"""The findings the docs state (docs/study_results.json, shown in the README's table and on each
study page) are what a run of the study gives now."""

from __future__ import annotations

import pytest

from docs import study_facts
from tests.conftest import REPOSITORY_ROOT, copy_warehouse, shared_file

RECORD = "python -m docs.generate record --warehouse HOME STUDY..."
# The real studies cheap enough to run here; the others' findings are checked where their own
# tests run them (tests/integration/).
REAL_STUDIES = ("recsys_published", "recsys_paper", "silent_bias")


def _assert_recorded(home, names):
    recorded = study_facts.load_results()
    now = study_facts.read_run_facts(home, list(names))
    for name in names:
        assert now[name]["verdicts"] == recorded[name]["verdicts"], (
            f"{name}: the docs state another finding than a run gives now; record it again: {RECORD}"
        )


def test_the_demo_findings_are_what_the_demo_runs_give(demo_site):
    names = [study_facts.study_name(p) for p in study_facts.study_files() if p.name.startswith("demo")]
    _assert_recorded(demo_site.parent, names)


@pytest.mark.real_data
def test_the_real_findings_are_what_the_real_runs_give(tmp_path, demo_warehouse):
    from biaswh.pipeline import run_studies

    shared_file("recsys-bias")  # skips (fails in CI) without the shared data
    home = copy_warehouse(demo_warehouse.home, tmp_path / "warehouse")
    studies = [str(REPOSITORY_ROOT / "studies" / f"{name}.toml") for name in REAL_STUDIES]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BIASWH_HOME", str(home))
        run_studies(studies)
    _assert_recorded(home, REAL_STUDIES)
