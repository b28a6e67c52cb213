"""The findings the docs state (docs/study_results.json, shown in the README's table and on each
study page) are what a run of the study gives now. The real studies' findings are checked
after their examples run (tests/docs/test_real_data_examples.py)."""

from __future__ import annotations

import re

from docs import study_facts

RECORD = "python -m docs.generate record --warehouse HOME STUDY..."


# What a finding says of the machine that ran it (the evaluation card's latency sentence): a busy
# machine breaches latency thresholds a quiet one does not, so it is left out of the comparison.
MACHINE_SENTENCE = re.compile(r" Latency, which measures the machine that ran the series: [^.]*\.$")


def _of_the_study(verdicts: list[str]) -> list[str]:
    """The verdicts without what they say of the machine."""
    return [MACHINE_SENTENCE.sub("", verdict) for verdict in verdicts]


def assert_recorded(home, names):
    """Each study's finding in the warehouse at ``home`` is the one the docs state."""
    recorded = study_facts.load_results()
    now = study_facts.read_run_facts(home, list(names))
    for name in names:
        expected, got = _of_the_study(recorded[name]["verdicts"]), _of_the_study(now[name]["verdicts"])
        assert got == expected, f"{name}: the docs state another finding than a run gives; record it again: {RECORD}"


def test_only_the_machines_sentence_is_left_out():
    verdict = "1 of 3 threshold breaches are significant (family: 2). Latency, which measures the machine that"
    verdict += " ran the series: 3 threshold breaches, 1 significant (their own family: 3 tested breaches)."
    assert _of_the_study([verdict]) == ["1 of 3 threshold breaches are significant (family: 2)."]
    assert _of_the_study(["No significant drift."]) == ["No significant drift."]


def test_the_demo_findings_are_what_the_demo_runs_give(demo_site):
    names = [study_facts.study_name(p) for p in study_facts.study_files() if p.name.startswith("demo")]
    assert_recorded(demo_site.parent, names)
