"""Cohen's d, Hedges' g and Welch's t-test, checked against statsmodels, scipy and the definitions."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.meta_analysis import effectsize_smd

from biaswh.stats.cohens_d import cohens_d_welch


def test_d_is_the_mean_difference_over_the_pooled_sd_and_p_is_scipys_welch():
    rng = np.random.default_rng(1)
    a, b = rng.normal(1.0, 2.0, 40), rng.normal(0.0, 1.0, 90)
    result = cohens_d_welch(a, b)
    pooled_sd = math.sqrt((39 * a.var(ddof=1) + 89 * b.var(ddof=1)) / 128)
    welch = stats.ttest_ind(a, b, equal_var=False)
    assert result.d == pytest.approx((a.mean() - b.mean()) / pooled_sd)
    assert (result.statistic, result.degrees_of_freedom, result.p_value) == pytest.approx(
        (welch.statistic, welch.df, welch.pvalue)
    )
    assert (result.n_a, result.n_b, result.warning) == (40, 90, None)
    assert "Welch" in result.variant


def test_hedges_g_is_statsmodels_effectsize_smd_and_its_interval_the_normal_approximation():
    rng = np.random.default_rng(2)
    a, b = rng.normal(0.5, 1, 12), rng.normal(0, 1, 15)
    result = cohens_d_welch(a, b, confidence=0.9)
    g, _ = effectsize_smd(a.mean(), a.std(ddof=1), 12, b.mean(), b.std(ddof=1), 15)
    assert result.hedges_g == pytest.approx(g)
    correction = 1 - 3 / (4 * 27 - 9)
    se = correction * math.sqrt(27 / (12 * 15) + result.d**2 / 54)
    half = stats.norm.ppf(0.95) * se
    assert (result.ci_low, result.ci_high) == pytest.approx((g - half, g + half))
    assert result.confidence == 0.9


def test_sign_is_first_group_minus_second():
    b = np.arange(20, dtype=float)
    assert cohens_d_welch(b + 5, b).d > 0 > cohens_d_welch(b - 5, b).d


def test_one_constant_group_is_tested_and_scipys_warning_kept():
    result = cohens_d_welch([3.0] * 12, list(range(20)))
    assert result.d < 0 and 0 <= result.p_value <= 1
    assert "Precision loss" in result.warning


@pytest.mark.parametrize("a,b", [([1.0], [1.0, 2.0]), ([2.0] * 5, [2.0] * 7)])
def test_undefined_d_is_refused(a, b):
    with pytest.raises(ValueError):
        cohens_d_welch(a, b)


def test_two_values_per_group_are_enough_and_fewer_are_refused_by_name():
    result = cohens_d_welch([1.0, 2.0], [3.0, 5.0])
    assert (result.n_a, result.n_b) == (2, 2) and result.d == pytest.approx(-2.5 / math.sqrt(1.25))
    with pytest.raises(ValueError, match="^Cohen's d needs at least two values per group, got 1 and 2$"):
        cohens_d_welch([1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="^Cohen's d needs at least two values per group, got 2 and 1$"):
        cohens_d_welch([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="^both groups are constant: Cohen's d is undefined$"):
        cohens_d_welch([2.0] * 5, [2.0] * 7)


def test_the_default_level_is_95_percent():
    rng = np.random.default_rng(4)
    a, b = rng.normal(0.5, 1, 30), rng.normal(0, 1, 30)
    result, at_95 = cohens_d_welch(a, b), cohens_d_welch(a, b, confidence=0.95)
    assert result == at_95 and result.confidence == 0.95


def test_single_precision_values_are_computed_in_double_precision():
    rng = np.random.default_rng(5)
    a, b = rng.normal(0.3, 1, 25).astype(np.float32), rng.normal(0, 1, 30).astype(np.float32)
    ours = cohens_d_welch(a, b)
    reference = cohens_d_welch(a.astype(float), b.astype(float))
    assert (ours.d, ours.statistic, ours.p_value) == (reference.d, reference.statistic, reference.p_value)
    assert cohens_d_welch(a, b.astype(float)) == reference == cohens_d_welch(a.astype(float), b)


def test_an_undefined_welch_p_is_reported_as_one():
    result = cohens_d_welch([1.0, 2.0, float("nan")], [1.0, 2.0, 3.0])
    assert math.isnan(stats.ttest_ind([1.0, 2.0, float("nan")], [1.0, 2.0, 3.0], equal_var=False).pvalue)
    assert result.p_value == 1.0


def test_each_distinct_warning_of_the_test_is_kept_once_in_order():
    # huge values overflow a square in scipy's variance; near-constant ones lose precision (twice)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy's own overflow in the pooled SD, outside the test
        result = cohens_d_welch([1e200, -1e200, 1e200], [3.0] * 11 + [3.0000000000000004])
    overflow, precision = result.warning.split("; ")
    assert overflow == "overflow encountered in square" and precision.startswith("Precision loss occurred")
