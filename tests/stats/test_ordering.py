"""The tests behind ordering claims: equal to scipy's, with their effect sizes and seeded intervals."""

from __future__ import annotations

import dataclasses
import math
from decimal import Decimal

import numpy as np
import pytest
from scipy import stats as scipy_stats

from biaswh.stats.ordering import friedman, kendalls_w, kendalls_w_rows, paired_wilcoxon
from biaswh.stats.paired.result import TestResult
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


# What each result says it is, word for word.
WILCOXON_NAMES = {
    "test": "wilcoxon",
    "variant": "signed-rank, zero differences dropped",
    "effect_name": "rank-biserial r (A larger > 0)",
}
FRIEDMAN_NAMES = {"test": "friedman", "effect_name": "Kendall's W"}


def _percentile_interval(values, confidence):
    return float(np.quantile(values, (1 - confidence) / 2)), float(np.quantile(values, (1 + confidence) / 2))


@pytest.mark.parametrize("confidence", [0.95, 0.8])
def test_paired_wilcoxon_in_full_with_its_seeded_bootstrap_over_units_recomputed_one_resample_at_a_time(confidence):
    rng = np.random.default_rng(11)
    a = rng.normal(0.3, 0.2, 40)
    b = a - rng.normal(0.05, 0.1, 40)
    b[0] = a[0] - 3.0  # unit 0 is the one difference that stands out: a resample without it is drawn
    b[5] = a[5]
    result = paired_wilcoxon(a, b, seed=17, confidence=confidence)
    # the documented draws: 2,000 resamples of the 40 units, each unit (the first one too) as likely;
    # 40 units give r enough distinct values that 2,001 resamples would move the interval
    draws = np.random.default_rng(17).integers(0, 40, size=(2000, 40))
    assert 0 in draws and 39 in draws
    low, high = _percentile_interval([rank_biserial((a - b)[rows]) for rows in draws], confidence)
    expected = scipy_stats.wilcoxon(np.delete(a - b, 5))
    interval = {"ci_low": pytest.approx(low, abs=1e-12), "ci_high": pytest.approx(high, abs=1e-12)}
    statistic, p_value = float(expected.statistic), float(expected.pvalue)
    assert result == TestResult(
        **WILCOXON_NAMES,
        n=40,
        statistic=statistic,
        p_value=p_value,
        effect_size=rank_biserial(a - b),
        **interval,
        confidence=confidence,
    )
    assert result.ci_low < result.ci_high


def test_paired_wilcoxon_without_a_non_zero_difference_is_not_run_and_says_so_in_full():
    result = paired_wilcoxon([0.2, 0.5, 0.5, 1.0], [0.2, 0.5, 0.5, 1.0], seed=3, confidence=0.9)
    assert math.isnan(result.statistic)
    not_run = {"p_value": 1.0, "effect_size": 0.0, "ci_low": 0.0, "ci_high": 0.0, "confidence": 0.9}
    assert dataclasses.replace(result, statistic=0.0) == TestResult(**WILCOXON_NAMES, n=4, statistic=0.0, **not_run)


def test_decimal_measurements_as_duckdb_returns_them_give_the_float_results():
    rng = np.random.default_rng(2)
    a, b = rng.normal(0.5, 0.1, 12).round(4), rng.normal(0.45, 0.1, 12).round(4)
    assert paired_wilcoxon([Decimal(str(x)) for x in a], [Decimal(str(x)) for x in b], seed=1) == paired_wilcoxon(
        a, b, seed=1
    )
    blocks = rng.normal(0, 1, (8, 3)).round(4) + np.array([0.0, 0.5, 1.0])
    as_decimals = [[Decimal(str(x)) for x in row] for row in blocks]
    assert friedman(as_decimals, seed=1) == friedman(blocks, seed=1)


@pytest.mark.parametrize(
    "a, b", [(np.ones((3, 2)), np.zeros((3, 2))), ([1.0, math.nan, 2.0], [0.0, 0.0, 0.0])], ids=["2-D", "NaN"]
)
def test_paired_wilcoxon_refuses_what_is_not_paired_1d_without_nan_in_these_words(a, b):
    with pytest.raises(ValueError) as refusal:
        paired_wilcoxon(a, b, seed=1)
    assert refusal.value.args == ("a and b must be paired 1-D arrays without NaN",)


@pytest.mark.parametrize("confidence", [0.95, 0.8])
def test_friedman_in_full_with_its_seeded_bootstrap_over_blocks_recomputed_one_resample_at_a_time(confidence):
    rng = np.random.default_rng(12)
    blocks = rng.normal(0, 1, (30, 4)) + np.array([0.0, 0.2, 0.5, 0.6])
    blocks[0] = [9.0, -9.0, 8.0, -8.0]  # block 0 orders the treatments against the others
    result = friedman(blocks, seed=23, confidence=confidence)
    # 30 blocks give W enough distinct values that 2,001 resamples would move the interval
    draws = np.random.default_rng(23).integers(0, 30, size=(2000, 30))
    assert 0 in draws and 29 in draws
    low, high = _percentile_interval([kendalls_w(blocks[rows]) for rows in draws], confidence)
    expected = scipy_stats.friedmanchisquare(*blocks.T)
    interval = {"ci_low": pytest.approx(low, abs=1e-12), "ci_high": pytest.approx(high, abs=1e-12)}
    statistic, p_value = float(expected.statistic), float(expected.pvalue)
    assert result == TestResult(
        **FRIEDMAN_NAMES,
        variant="4 treatments, chi-square approximation",
        n=30,
        statistic=statistic,
        p_value=p_value,
        effect_size=statistic / (30 * 3),
        **interval,
        confidence=confidence,
    )
    assert result.ci_low < result.ci_high


def test_friedman_of_blocks_each_all_equal_is_not_run_and_says_so_in_full():
    blocks = np.array([[0.4, 0.4, 0.4], [0.7, 0.7, 0.7], [0.1, 0.1, 0.1]])
    not_run = {"p_value": 1.0, "effect_size": 0.0, "ci_low": 0.0, "ci_high": 0.0, "confidence": 0.9}
    variant = "3 treatments, chi-square approximation"
    assert friedman(blocks, seed=5, confidence=0.9) == TestResult(
        **FRIEDMAN_NAMES, variant=variant, n=3, statistic=0.0, **not_run
    )


def test_friedman_runs_on_two_blocks_the_fewest_it_accepts():
    blocks = np.array([[0.1, 0.5, 0.9], [0.2, 0.3, 0.8]])
    result = friedman(blocks, seed=1)
    expected = scipy_stats.friedmanchisquare(*blocks.T)
    assert (result.n, result.statistic, result.p_value) == (2, expected.statistic, expected.pvalue)


@pytest.mark.parametrize(
    "blocks",
    [np.ones((1, 3)), np.ones((4, 2)), np.ones(6), np.array([[0.1, 0.2, 0.3], [0.3, math.nan, 0.1], [0.2, 0.1, 0.3]])],
    ids=["one block", "two treatments", "1-D", "NaN"],
)
def test_friedman_refuses_in_these_words(blocks):
    with pytest.raises(ValueError) as refusal:
        friedman(blocks, seed=1)
    assert refusal.value.args == ("Friedman's test needs at least 2 blocks of at least 3 treatments, without NaN",)


def test_resamples_of_constant_blocks_have_w_zero_without_a_warning_where_scipy_divides_by_zero():
    # scipy's tie correction is 0 for constant blocks, and at 11 blocks of 6 its chi-square
    # numerator rounds to a non-zero number: x / 0, not 0 / 0 (warnings are errors here)
    assert kendalls_w_rows(np.ones((4, 11, 6))).tolist() == [0.0] * 4
