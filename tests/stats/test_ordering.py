"""The tests behind ordering claims: equal to scipy's, with their effect sizes and seeded intervals."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as scipy_stats

from biaswh.stats.ordering import friedman, kendalls_w, kendalls_w_rows, paired_wilcoxon
from biaswh.stats.paired.wilcoxon import rank_biserial


def test_paired_wilcoxon_is_scipys_on_the_non_zero_differences_with_rank_biserial_r():
    rng = np.random.default_rng(3)
    a = rng.normal(0.05, 0.02, 30)
    b = a - rng.normal(0.01, 0.01, 30)
    b[:4] = a[:4]  # zero differences are dropped, as Wilcoxon's method drops them
    result = paired_wilcoxon(a, b, seed=1)
    expected = scipy_stats.wilcoxon((a - b)[4:], alternative="two-sided")
    assert (result.statistic, result.p_value) == (expected.statistic, expected.pvalue)
    assert result.effect_size == rank_biserial(a - b) > 0.5  # A larger in most conditions
    assert result.ci_low <= result.effect_size <= result.ci_high and result.n == 30
    assert paired_wilcoxon(a, b, seed=1) == result and paired_wilcoxon(a, b, seed=2).ci_low != result.ci_low


def test_indistinguishable_measurements_give_no_evidence():
    rng = np.random.default_rng(4)
    a, b = rng.normal(0, 1, 12), rng.normal(0, 1, 12)
    assert paired_wilcoxon(a, b, seed=1).p_value > 0.05
    same = paired_wilcoxon(a, a, seed=1)
    assert (same.p_value, same.effect_size, same.ci_low, same.ci_high) == (1.0, 0.0, 0.0, 0.0)
    # 6 conditions cannot give a two-sided exact p below 2 / 2^6
    assert paired_wilcoxon(np.arange(6) + 1.0, np.zeros(6), seed=1).p_value == pytest.approx(2 / 2**6)


def test_friedman_is_scipys_and_kendalls_w_follows_its_definition():
    rng = np.random.default_rng(5)
    blocks = rng.normal(0, 1, (40, 3)) + np.array([0.0, 0.3, 0.8])
    result = friedman(blocks, seed=7)
    expected = scipy_stats.friedmanchisquare(*blocks.T)
    assert (result.statistic, result.p_value) == (expected.statistic, expected.pvalue) and result.p_value < 0.01
    ranks = scipy_stats.rankdata(blocks, axis=1)  # no ties: W = 12 S / (n^2 (k^3 - k))
    n, k = blocks.shape
    spread = ((ranks.sum(axis=0) - n * (k + 1) / 2) ** 2).sum()
    assert result.effect_size == pytest.approx(12 * spread / (n**2 * (k**3 - k))) == kendalls_w(blocks)
    assert result.ci_low <= result.effect_size <= result.ci_high and result.n == 40


def test_friedman_without_differences_and_refusals():
    assert friedman(np.ones((5, 3)), seed=1).p_value == 1.0
    assert friedman(np.random.default_rng(1).normal(0, 1, (30, 4)), seed=1).p_value > 0.05
    with pytest.raises(ValueError, match="at least 3 treatments"):
        friedman(np.ones((5, 2)), seed=1)


@pytest.mark.parametrize("kind", ["continuous", "tied", "some blocks constant", "all blocks constant"])
def test_kendalls_w_of_every_bootstrap_resample_at_once_is_the_one_at_a_time_value(kind):
    rng = np.random.default_rng(7)
    blocks = rng.random((9, 4)) if kind == "continuous" else rng.integers(0, 3, size=(9, 4)).astype(float)
    if kind == "some blocks constant":
        blocks[:5] = 2.0
    if kind == "all blocks constant":
        blocks[:] = blocks[:, :1]
    draws = rng.integers(0, len(blocks), size=(500, len(blocks)))

    at_once = kendalls_w_rows(blocks[draws])

    one_at_a_time = np.array([kendalls_w(blocks[rows]) for rows in draws])
    assert np.array_equal(at_once, one_at_a_time)
    assert np.isfinite(at_once).all() and (at_once >= 0).all() and (at_once <= 1).all()
    if kind == "all blocks constant":
        assert (at_once == 0).all()
    else:
        assert at_once.std() > 0
