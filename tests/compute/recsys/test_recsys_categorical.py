"""The recommendation-bias test of categorical features: the original's rules around biaswh.stats.cramers_v."""

from __future__ import annotations

import pytest
from scipy.stats import chi2_contingency
from scipy.stats.contingency import association

from biaswh.compute.recsys.categorical import cramers_v_chi_square
from biaswh.stats.cramers_v import bias_corrected_cramers_v, contingency_table


def _groups(counts_pool: dict, counts_rec: dict) -> tuple[list, list]:
    pool = [v for v, n in counts_pool.items() for _ in range(n)]
    rec = [v for v, n in counts_rec.items() for _ in range(n)]
    return rec, pool


def test_without_yates_v_equals_scipys_cramer_association_and_p_equals_chi2_contingency():
    rec, pool = _groups({"x": 50, "y": 30, "z": 20}, {"x": 15, "y": 20, "z": 15})
    result = cramers_v_chi_square(rec, pool, yates=False)
    table = contingency_table([pool, rec])
    assert result.bias == pytest.approx(association(table, method="cramer", correction=False))
    assert result.p_value == pytest.approx(chi2_contingency(table, correction=False).pvalue)
    assert result.degrees_of_freedom == 2 and result.yates_applied is False
    assert result.bias_corrected_v == pytest.approx(bias_corrected_cramers_v(result.statistic, table))
    assert result.bias_corrected_v < result.bias


def test_yates_applies_only_to_two_by_two_tables_as_in_scipy():
    rec, pool = _groups({"0": 70, "1": 30}, {"0": 20, "1": 20})
    corrected, plain = cramers_v_chi_square(rec, pool), cramers_v_chi_square(rec, pool, yates=False)
    assert corrected.yates_applied is True and plain.yates_applied is False
    assert corrected.bias < plain.bias and corrected.p_value > plain.p_value
    assert corrected.p_value == pytest.approx(chi2_contingency(contingency_table([pool, rec])).pvalue)
    rec3, pool3 = _groups({"a": 40, "b": 40, "c": 20}, {"a": 10, "b": 20, "c": 10})
    assert cramers_v_chi_square(rec3, pool3).bias == pytest.approx(cramers_v_chi_square(rec3, pool3, yates=False).bias)


def test_yates_turns_a_tiny_binary_difference_into_exactly_v_0_and_p_1():
    # |observed - expected| <= 0.5 in every cell: the corrected chi-square is 0. This is
    # how the published results hold 39 binary rows with bias 0 and p 1.
    rec, pool = _groups({"0": 45, "1": 5}, {"0": 91, "1": 9})
    result = cramers_v_chi_square(rec, pool)
    assert (result.status, result.bias, result.p_value) == ("ok", 0.0, 1.0)


def test_edge_cases_follow_the_original():
    few = cramers_v_chi_square(["a"] * 9 + ["b"], ["a"] * 5 + ["b"] * 4)
    assert (few.status, few.metric, few.bias, few.p_value, few.n_pool) == (
        "insufficient data",
        "insufficient_data",
        0.0,
        1.0,
        9,
    )
    same = cramers_v_chi_square(["a"] * 12, ["a"] * 30)
    assert (same.status, same.metric, same.bias, same.p_value) == ("no variance", "Cramér's V (no variance)", 0.0, 1.0)
    # The original's quirk: a single value per group is "no variance" even when they differ.
    assert cramers_v_chi_square(["a"] * 12, ["b"] * 30).status == "no variance"


def test_missing_values_are_dropped():
    rec = ["a"] * 6 + ["b"] * 6 + [None, float("nan")]
    result = cramers_v_chi_square(rec, ["a"] * 10 + ["b"] * 10)
    assert result.n_recommended == 12 and result.status == "ok"
