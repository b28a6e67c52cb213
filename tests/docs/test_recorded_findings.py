"""The findings the docs state (docs/study_results.json, shown in the README's table and on each
study page) are what a run of the study gives now. The real studies' findings are checked
after their examples run (tests/docs/test_real_data_examples.py)."""

from __future__ import annotations

import re

from docs import study_facts

RECORD = "python -m docs.generate record --warehouse HOME STUDY..."
# Studies whose numbers differ between two fresh builds of the same code: demo_evaluation's series
# holds an IVF-flat ANN run, whose index LanceDB trains unseeded (docs/retrieval-engine.md), so
# its breaches, and the Holm family they form, vary. Its finding is compared without numbers.
NOT_BIT_REPRODUCIBLE = {"demo_evaluation"}


def _without_numbers(verdicts: list[str]) -> list[str]:
    return [re.sub(r"-?\d+(\.\d+)?", "#", verdict) for verdict in verdicts]


def assert_recorded(home, names):
    """Each study's finding in the warehouse at ``home`` is the one the docs state."""
    recorded = study_facts.load_results()
    now = study_facts.read_run_facts(home, list(names))
    for name in names:
        expected, got = recorded[name]["verdicts"], now[name]["verdicts"]
        if name in NOT_BIT_REPRODUCIBLE:
            expected, got = _without_numbers(expected), _without_numbers(got)
        assert got == expected, f"{name}: the docs state another finding than a run gives; record it again: {RECORD}"


def test_numbers_are_masked_only_for_the_studies_that_need_it():
    assert _without_numbers(["1 of 27 breaches, p = 0.0023"]) == ["# of # breaches, p = #"]
    assert NOT_BIT_REPRODUCIBLE <= {study_facts.study_name(p) for p in study_facts.study_files()}


def test_the_demo_findings_are_what_the_demo_runs_give(demo_site):
    names = [study_facts.study_name(p) for p in study_facts.study_files() if p.name.startswith("demo")]
    assert_recorded(demo_site.parent, names)
