"""The paired bootstrap's whole result, its edges and its refusals, word for word.

The reference is scipy.stats.bootstrap with the same seed, which draws the same resamples (one
``integers(0, n, (R, n))`` call): its percentile interval and its bootstrap distribution, from
which the p-value is twice the smaller share of resampled means on either side of zero.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import numpy as np
import pytest
from scipy import stats

from biaswh.stats.paired.bootstrap import paired_recall_difference, paired_recall_difference_grid
from biaswh.stats.paired.result import TestResult


def _scipy_reference(differences: np.ndarray, seed: int, *, n_resamples: int = 2000, confidence: float = 0.95):
    result = stats.bootstrap(
        (differences,),
        np.mean,
        n_resamples=n_resamples,
        confidence_level=confidence,
        method="percentile",
        vectorized=True,
        rng=np.random.default_rng(seed),
    )
    means = result.bootstrap_distribution
    p_value = min(1.0, 2 * min(np.mean(means <= 0), np.mean(means >= 0)))
    return float(result.confidence_interval.low), float(result.confidence_interval.high), float(p_value)


def _hits(seed: int, n: int, rate_a: float, rate_b: float) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (rng.random(n) < rate_a).astype(float), (rng.random(n) < rate_b).astype(float)


@pytest.mark.parametrize(("n_resamples", "confidence"), [(2000, 0.9), (2500, 0.95)])
def test_the_whole_result_names_the_test_its_resamples_seed_and_level(n_resamples, confidence):
    a, b = _hits(31, 90, 0.6, 0.45)
    result = paired_recall_difference(a, b, seed=17, n_resamples=n_resamples, confidence=confidence)
    low, high, p_value = _scipy_reference(a - b, 17, n_resamples=n_resamples, confidence=confidence)
    observed = float((a - b).mean())
    expected = TestResult(
        test="paired bootstrap",
        variant=f"percentile, {n_resamples:,} resamples, seed 17",
        n=90,
        statistic=observed,
        p_value=p_value,
        effect_name="recall difference (A - B)",
        effect_size=observed,
        ci_low=low,
        ci_high=high,
        confidence=confidence,
    )
    assert result.variant == f"percentile, {n_resamples:,} resamples, seed 17"  # "2,500", with its comma
    assert (result.p_value, result.ci_low, result.ci_high) == pytest.approx((p_value, low, high), abs=1e-12)
    # Every other field exactly; these three from another sum's rounding, to 1e-12.
    assert result == replace(expected, p_value=result.p_value, ci_low=result.ci_low, ci_high=result.ci_high)


def test_thousands_of_pairs_drawn_in_blocks_equal_one_draw_of_every_resample():
    # 3,000 pairs x 2,000 resamples is more than one block of draws (RESAMPLE_BLOCK_CELLS): the
    # blocks must come out as scipy's single call, the last block shorter than the others.
    a, b = _hits(8, 3000, 0.52, 0.5)
    result = paired_recall_difference(a, b, seed=3)
    assert (result.ci_low, result.ci_high, result.p_value) == pytest.approx(_scipy_reference(a - b, 3), abs=1e-12)


def test_hits_given_as_decimals_are_read_as_numbers():
    # DuckDB hands a DECIMAL column to Python as decimal.Decimal; float minus Decimal is a TypeError.
    rng = np.random.default_rng(2)
    a, b = rng.random((60, 2)) < [0.5, 0.7], rng.random((60, 2)) < [0.4, 0.6]
    as_decimals = [np.array([[Decimal(int(v)) for v in row] for row in hits], dtype=object) for hits in (a, b)]
    expected = paired_recall_difference_grid(a.astype(float), b.astype(float), seed=5)
    assert paired_recall_difference_grid(*as_decimals, seed=5) == expected
    assert paired_recall_difference_grid(as_decimals[0], b, seed=5) == expected
    assert paired_recall_difference_grid(a, as_decimals[1], seed=5) == expected


def test_a_column_without_a_difference_has_p_one_and_a_balanced_one_is_capped_at_one():
    a = np.array([[1, 1, 1], [0, 0, 1], [1, 0, 0], [0, 1, 0]], dtype=float)
    b = np.array([[1, 0, 0], [0, 1, 1], [1, 1, 0], [0, 0, 0]], dtype=float)
    same, balanced, _ = paired_recall_difference_grid(a, b, seed=1)
    assert (same.p_value, same.ci_low, same.ci_high, same.effect_size) == (1.0, 0.0, 0.0, 0.0)
    # Differences +1, -1, -1, +1: more than half of the resampled means are exactly 0, so both
    # shares exceed one half and twice the smaller is above 1 before the cap.
    draws = np.random.default_rng(1).integers(0, 4, size=(2000, 4))
    sums = np.array([1, -1, -1, 1])[draws].sum(axis=1)
    assert 2 * min(np.mean(sums <= 0), np.mean(sums >= 0)) > 1
    assert balanced.p_value == 1.0


@pytest.mark.parametrize("scale", [1e-9, 1e9])
def test_the_p_value_does_not_depend_on_the_unit_of_the_differences(scale):
    # What counts as a tie at zero is relative to the largest difference, so a metric measured in
    # other units gives the same p; an absolute tolerance would call every tiny mean zero.
    differences = np.random.default_rng(4).normal(0.02, 0.3, 50)
    unscaled = paired_recall_difference(differences, np.zeros(50), seed=9)
    scaled = paired_recall_difference(differences * scale, np.zeros(50), seed=9)
    assert 0.01 < unscaled.p_value < 1 and scaled.p_value == unscaled.p_value
    assert (scaled.ci_low, scaled.ci_high) == pytest.approx((unscaled.ci_low * scale, unscaled.ci_high * scale))


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_mean_exactly_at_the_tie_tolerance_counts_as_zero_on_both_sides(sign):
    # Two pairs differing by 1 and by 1e-12 (the tolerance is 1e-12 of the largest difference):
    # a resample drawing the second pair twice has a mean of exactly the tolerance, a tie.
    result = paired_recall_difference(sign * np.array([1.0, 1e-12]), np.zeros(2), seed=6)
    draws = np.random.default_rng(6).integers(0, 2, size=(2000, 2))
    at_tolerance = np.mean((draws == 1).all(axis=1))
    assert 0.2 < at_tolerance < 0.3
    assert result.p_value == 2 * at_tolerance


def test_one_pair_gives_the_interval_of_its_own_difference():
    result = paired_recall_difference([1.0], [0.0], seed=2)
    assert (result.n, result.effect_size, result.ci_low, result.ci_high) == (1, 1.0, 1.0, 1.0)


def test_refusals_are_worded():
    with pytest.raises(ValueError, match="^use at least 2,000 bootstrap resamples$"):
        paired_recall_difference([1, 0], [0, 1], seed=1, n_resamples=1999)
    shape = r"^hits_a and hits_b must be \(pairs x columns\) of the same shape$"
    for a, b in [
        (np.zeros((3, 2)), np.zeros((3, 1))),
        (np.zeros(3), np.zeros(3)),
        (np.zeros((3, 2)), np.zeros((4, 2))),
    ]:
        with pytest.raises(ValueError, match=shape):
            paired_recall_difference_grid(a, b, seed=1)
    with pytest.raises(ValueError, match="^no pairs to compare$"):
        paired_recall_difference_grid(np.zeros((0, 3)), np.zeros((0, 3)), seed=1)
