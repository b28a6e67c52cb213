"""The [evaluation] table: runs merged over [retrieval], one baseline, seeded folds and samples."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from biaswh.compute.evaluation.series import series_settings, tune_report_folds
from biaswh.warehouse.errors import UserError


@dataclass
class FakeStudy:
    settings: dict = field(default_factory=dict)


BASE = {"retrieval": {"retrievers": ["bm25"], "bm25": {"k1": 1.5, "b": 0.75, "epsilon": 0.25}}}


def test_runs_override_only_what_they_name_and_the_baseline_is_marked():
    study = FakeStudy(
        {
            **BASE,
            "evaluation": {
                "query_set": "squad_questions:validation",
                "runs": [{"label": "a"}, {"label": "b", "baseline": True, "retrieval": {"bm25": {"k1": 0.9}}}],
            },
        }
    )
    _, runs = series_settings(study)
    assert [(r["label"], r["position"], r["is_baseline"]) for r in runs] == [("a", 0, False), ("b", 1, True)]
    assert runs[1]["retrieval"]["bm25"] == {"k1": 0.9, "b": 0.75, "epsilon": 0.25}
    assert runs[0]["retrieval"]["bm25"]["k1"] == 1.5
    assert runs[0]["retrieval"]["query_sets"] == ["squad_questions:validation"]


def test_first_run_is_the_baseline_by_default():
    study = FakeStudy(
        {**BASE, "evaluation": {"query_set": "squad_questions:validation", "runs": [{"label": "x"}, {"label": "y"}]}}
    )
    assert [r["is_baseline"] for r in series_settings(study)[1]] == [True, False]


@pytest.mark.parametrize(
    ("evaluation", "message"),
    [
        ({"query_set": "pairs"}, "query_set"),
        ({"query_set": "squad_questions:validation", "tune_share": 1.0}, "tune_share"),
        ({"query_set": "squad_questions:validation", "runs": [{"label": "a"}, {"label": "a"}]}, "unique label"),
        (
            {
                "query_set": "squad_questions:validation",
                "runs": [{"label": "a", "baseline": True}, {"label": "b", "baseline": True}],
            },
            "only one run",
        ),
        ({"query_set": "squad_questions:validation", "runs": [{"label": "a", "bm25": {}}]}, "unknown key"),
        ({"query_set": "squad_questions:validation", "typo": 1}, "unknown key"),
        ({"query_set": "squad_questions:validation", "sample": 0}, "sample"),
        ({"query_set": "squad_questions:validation", "sample": "all"}, "sample"),
    ],
)
def test_bad_settings_are_refused(evaluation, message):
    with pytest.raises(UserError, match=message):
        series_settings(FakeStudy({**BASE, "evaluation": evaluation}))


def test_folds_are_seeded_and_split_by_share():
    ids = [str(i) for i in range(101)]
    folds = tune_report_folds(ids, share=0.3, seed=7)
    assert folds == tune_report_folds(ids, share=0.3, seed=7)
    assert folds != tune_report_folds(ids, share=0.3, seed=8)
    assert folds.count("tune") == 30 and folds.count("report") == 71
