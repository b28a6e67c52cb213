"""The recommendation-bias test of numerical features: the original's rules around biaswh.stats.cohens_d."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from biaswh.compute.recsys.numerical import cohens_d_welch


def test_d_and_welch_match_scipy_and_the_pooled_sd_definition():
    rng = np.random.default_rng(1)
    recommended, pool = rng.normal(1.0, 2.0, 40), rng.normal(0.0, 1.0, 90)
    result = cohens_d_welch(recommended, pool)
    welch = stats.ttest_ind(recommended, pool, equal_var=False)
    pooled_sd = math.sqrt((39 * recommended.var(ddof=1) + 89 * pool.var(ddof=1)) / 128)
    assert result.status == "ok" and result.metric == "Cohen's d"
    assert result.bias == pytest.approx((recommended.mean() - pool.mean()) / pooled_sd)
    assert result.p_value == pytest.approx(welch.pvalue)
    assert result.statistic == pytest.approx(welch.statistic)
    assert result.degrees_of_freedom == pytest.approx(welch.df)
    assert (result.n_recommended, result.n_pool) == (40, 90)
    assert "Welch" in result.test_variant


def test_hedges_g_shrinks_d_and_its_interval_covers_it():
    rng = np.random.default_rng(2)
    result = cohens_d_welch(rng.normal(0.5, 1, 12), rng.normal(0, 1, 15))
    correction = 1 - 3 / (4 * 27 - 9)
    assert result.hedges_g == pytest.approx(correction * result.bias)
    low, high = result.interval
    assert low < result.hedges_g < high
    # The 95 % normal interval is symmetric with half-width 1.96 standard errors.
    se = correction * math.sqrt(27 / (12 * 15) + result.bias**2 / 54)
    assert high - low == pytest.approx(2 * stats.norm.ppf(0.975) * se)


def test_sign_is_recommended_minus_pool():
    pool = np.arange(20, dtype=float)
    assert cohens_d_welch(pool + 5, pool).bias > 0
    assert cohens_d_welch(pool - 5, pool).bias < 0


def test_fewer_than_ten_values_in_either_group_is_insufficient_data_after_dropping_missing():
    recommended = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, float("nan"), 11.0]  # 10 after the NaN goes
    result = cohens_d_welch(recommended[:-1], list(range(30)))
    assert (result.status, result.metric, result.bias, result.p_value) == (
        "insufficient data",
        "insufficient_data",
        0.0,
        1.0,
    )
    assert result.n_recommended == 9
    assert cohens_d_welch(recommended, list(range(30))).status == "ok"


def test_both_groups_constant_is_no_variance():
    result = cohens_d_welch([3.0] * 12, [3.0] * 20)
    assert (result.status, result.metric, result.bias, result.p_value) == (
        "no variance",
        "Cohen's d (no variance)",
        0.0,
        1.0,
    )


def test_one_constant_group_is_still_tested():
    result = cohens_d_welch([3.0] * 12, list(range(20)))
    assert result.status == "ok" and result.bias < 0
    assert "Precision loss" in result.message  # scipy's warning is kept with the result, not hidden
