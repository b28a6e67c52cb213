"""Two subjects compared finding by finding: the paired test over shared units equals scipy's and statsmodels'.

A toy family declares its units; binary units (a flip or not) must give McNemar's exact p
(statsmodels), continuous ones the exact paired permutation test (scipy); units only one subject
has are left out, a finding without units (or none in common) is "not compared", with why, and a
finding only one subject has is no row.
"""

from __future__ import annotations

import duckdb
import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar

from biaswh.analysis.common.subject_comparisons import compare_subjects, comparison_verdict
from biaswh.warehouse.relations import subject_units
from biaswh.warehouse.relations.subject_units import SubjectUnits

RNG = np.random.default_rng(5)
BINARY_BASE = np.array([1, 0, 0, 1, 0, 0, 0, 0, 0, 0] * 3, dtype=float)
BINARY_CAND = np.array([1, 1, 1, 0, 1, 0, 1, 0, 1, 0] * 3, dtype=float)
WORDS_BASE = RNG.normal(0.05, 0.1, size=12)
WORDS_CAND = WORDS_BASE + RNG.normal(0.08, 0.05, size=12)


@pytest.fixture
def warehouse(monkeypatch):
    con = duckdb.connect()
    con.execute(
        "create table main.subject_findings as select * from (values"
        " ('audit', 'A', 'toy', 'flips', 'dimension one', 'run1', 'a'),"
        " ('audit', 'B', 'toy', 'flips', 'dimension one', 'run2', 'b'),"
        " ('audit', 'A', 'toy', 'words', 'dimension two', 'run1', 'a'),"
        " ('audit', 'B', 'toy', 'words', 'dimension two', 'run2', 'b'),"
        " ('audit', 'A', 'toy', 'no units', 'dimension three', 'run1', 'a'),"
        " ('audit', 'B', 'toy', 'no units', 'dimension three', 'run2', 'b'),"
        " ('audit', 'A', 'toy', 'only A', 'dimension four', 'run1', 'a'),"
        " ('audit', 'A', 'toy', 'disjoint', 'dimension five', 'run1', 'a'),"
        " ('audit', 'B', 'toy', 'disjoint', 'dimension five', 'run2', 'b'))"
        " as t(audit_run_id, subject_id, study_type, finding, dimension, run_id, measured_as)"
    )
    rows = [("run1", "a", "flips", f"u{i}", v) for i, v in enumerate(BINARY_BASE)]
    rows += [("run2", "b", "flips", f"u{i}", v) for i, v in enumerate(BINARY_CAND)]
    rows += [("run1", "a", "words", f"w{i}", v) for i, v in enumerate(WORDS_BASE)]
    rows += [("run2", "b", "words", f"w{i}", v) for i, v in enumerate(WORDS_CAND)]
    rows += [("run2", "b", "words", "only in b", 9.0)]  # no partner: left out
    rows += [("run1", "a", "disjoint", "x", 1.0), ("run2", "b", "disjoint", "y", 0.0)]
    con.execute("create table main.toy_units (run_id varchar, measured_as varchar, finding varchar, unit varchar,"
                " value double)")  # fmt: skip
    con.executemany("insert into main.toy_units values (?, ?, ?, ?, ?)", rows)
    select = "select run_id, measured_as, finding, unit, value, 'toy value' as value_name from main.toy_units"
    monkeypatch.setattr(subject_units, "SUBJECT_UNITS", [SubjectUnits("toy", ("main.toy_units",), select)])
    yield con
    con.close()


def _compared(con) -> dict[str, dict]:
    found = {}
    for row in con.execute("select * from main.subject_findings").pl().to_dicts():
        found.setdefault(row["subject_id"], {})[row["study_type"], row["finding"]] = row
    frame = compare_subjects(
        con,
        baseline=("A", "a"),
        candidate=("B", "b"),
        found_baseline=found["A"],
        found_candidate=found["B"],
        relation="rivals (declared)",
        seed=3,
    )
    return {row["finding"]: row for row in frame.to_dicts()}


def test_binary_units_give_mcnemars_exact_p_and_the_rate_difference(warehouse):
    row = _compared(warehouse)["flips"]
    only_base = int(((BINARY_BASE == 1) & (BINARY_CAND == 0)).sum())
    only_cand = int(((BINARY_BASE == 0) & (BINARY_CAND == 1)).sum())
    both = int(((BINARY_BASE == 1) & (BINARY_CAND == 1)).sum())
    table = [[both, only_base], [only_cand, 30 - both - only_base - only_cand]]
    assert row["p_value"] == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-12)
    assert row["difference"] == pytest.approx(BINARY_CAND.mean() - BINARY_BASE.mean())
    assert (row["baseline_mean"], row["candidate_mean"]) == pytest.approx((BINARY_BASE.mean(), BINARY_CAND.mean()))
    assert row["ci_low"] < row["difference"] < row["ci_high"] and row["n_units"] == 30
    assert row["dimension"] == "dimension one" and row["value_name"] == "toy value"


def test_continuous_units_give_the_exact_paired_permutation_p_on_the_units_both_have(warehouse):
    row = _compared(warehouse)["words"]
    expected = stats.permutation_test(
        (WORDS_CAND, WORDS_BASE),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        n_resamples=np.inf,
        alternative="two-sided",
        vectorized=True,
    ).pvalue
    assert row["p_value"] == pytest.approx(expected, rel=1e-9)
    assert row["n_units"] == 12 and row["n_nonzero"] == 12  # the unit only b has is left out
    assert row["difference"] == pytest.approx(float(np.mean(WORDS_CAND - WORDS_BASE)))
    assert "exact enumeration" in row["test"] and row["note"] == ""


def test_a_finding_without_units_is_not_compared_and_one_only_one_subject_has_is_no_row(warehouse):
    compared = _compared(warehouse)
    assert set(compared) == {"flips", "words", "no units", "disjoint"}
    row = compared["no units"]
    assert row["p_value"] is None and row["n_units"] == 0 and row["note"].startswith("no units to pair")
    assert compared["disjoint"]["note"] == "no units in common: the finding is not paired unit by unit"


@pytest.mark.parametrize(
    ("baseline", "candidate", "significant", "verdict"),
    [
        (0.4, 0.1, True, "better"),
        (-0.4, 0.1, True, "better"),  # nearer 0 from the other side
        (0.1, 0.4, True, "worse"),
        (0.1, -0.4, True, "worse"),
        (0.2, -0.2, True, "different, equally far from no bias"),
        (0.4, 0.1, False, "no evidence of a difference"),
        (None, 0.1, False, "not compared"),
    ],
)
def test_the_verdict_says_better_only_nearer_zero_and_significant(baseline, candidate, significant, verdict):
    assert comparison_verdict(baseline, candidate, is_significant=significant) == verdict


def test_a_comparison_says_when_too_few_units_differ_for_a_small_p():
    from biaswh.analysis.common.subject_comparisons import _note

    assert _note("too few queries", 2, 0.5) == "fewer than 6 paired units: never called significant"
    assert _note("tested", 0, 1.0) == "no unit differs"
    assert _note("tested", 4, 0.125) == "only 4 units differ: the smallest p possible is 0.125"
    assert _note("tested", 10, 2 / 2**10) == ""
