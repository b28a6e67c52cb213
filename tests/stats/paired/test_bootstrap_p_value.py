"""The paired bootstrap's interval and p-value on data with variance, against scipy and in simulation.

scipy.stats.bootstrap with the same seed draws the same resamples (one ``integers(0, n, (R, n))``
call), so its percentile interval and its bootstrap distribution are an independent
computation of ours. The simulations check what the p-value promises: under a true zero
difference about 5% of p-values fall below 0.05, and the 95% interval covers a true
difference about 95% of the time (binomial tolerances at the 0.1% level).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from biaswh.stats.paired.bootstrap import paired_recall_difference, paired_recall_difference_grid

N_SIMULATIONS = 200


def _binomial_range(probability: float) -> tuple[int, int]:
    """Counts out of N_SIMULATIONS outside which a correct procedure fails only 0.1% of the time."""
    return tuple(int(v) for v in stats.binom.interval(0.999, N_SIMULATIONS, probability))


def _reference(differences: np.ndarray, seed: int) -> tuple[float, float, float]:
    result = stats.bootstrap(
        (differences,), np.mean, n_resamples=2000, method="percentile", vectorized=True, rng=np.random.default_rng(seed)
    )
    means = result.bootstrap_distribution
    p_value = min(1.0, 2 * min(np.mean(means <= 0), np.mean(means >= 0)))
    return result.confidence_interval.low, result.confidence_interval.high, p_value


@pytest.mark.parametrize(("p_a", "p_b", "seed"), [(0.6, 0.5, 3), (0.5, 0.6, 4), (0.55, 0.55, 5), (0.7, 0.45, 6)])
def test_interval_and_p_value_equal_scipy_bootstrap_with_the_same_resamples(p_a, p_b, seed):
    rng = np.random.default_rng(seed)
    a, b = (rng.random(80) < p_a).astype(float), (rng.random(80) < p_b).astype(float)
    result = paired_recall_difference(a, b, seed=seed)
    low, high, p_value = _reference(a - b, seed)
    assert (result.ci_low, result.ci_high) == (pytest.approx(low, abs=1e-12), pytest.approx(high, abs=1e-12))
    assert result.p_value == pytest.approx(p_value, abs=1e-12)
    assert 0 < result.p_value < 1 and result.ci_low < result.ci_high


def test_every_column_of_the_grid_equals_its_own_scipy_bootstrap():
    rng = np.random.default_rng(9)
    a, b = rng.random((70, 3)) < [0.3, 0.5, 0.8], rng.random((70, 3)) < [0.35, 0.4, 0.7]
    for column, result in enumerate(paired_recall_difference_grid(a, b, seed=21)):
        low, high, p_value = _reference(a[:, column].astype(float) - b[:, column], 21)
        assert (result.ci_low, result.ci_high, result.p_value) == pytest.approx((low, high, p_value), abs=1e-12)


def test_resamples_whose_changes_cancel_count_as_ties_at_zero():
    # Per-query changes of a precision@5: steps of 0.2. Many resamples have a mean of exactly 0,
    # which floating-point sums miss by ~1e-17; integer arithmetic on the steps counts them exactly.
    rng = np.random.default_rng(12)
    steps = rng.choice([-2, -1, 0, 0, 0, 1, 2], size=64)
    result = paired_recall_difference(steps * 0.2, np.zeros(64), seed=4)
    draws = np.random.default_rng(4).integers(0, 64, size=(2000, 64))  # the resamples, drawn as scipy does
    sums = steps[draws].sum(axis=1)
    assert np.sum(sums == 0) > 20  # the check is about ties: there are many
    assert result.p_value == pytest.approx(min(1.0, 2 * min(np.mean(sums <= 0), np.mean(sums >= 0))), abs=1e-12)


def test_under_a_true_zero_difference_about_five_percent_of_p_values_are_below_005():
    rng = np.random.default_rng(20261122)
    rejections = 0
    for simulation in range(N_SIMULATIONS):
        # 150 pairs; a pair hits under A and under B independently with the same rate.
        a, b = rng.random(150) < 0.5, rng.random(150) < 0.5
        rejections += paired_recall_difference(a, b, seed=simulation).p_value < 0.05
    low, high = _binomial_range(0.05)
    assert low <= rejections <= high, (rejections, (low, high))


@pytest.mark.parametrize("true_difference", [0.1, -0.1])
def test_the_interval_covers_a_true_difference_about_95_percent_of_the_time(true_difference):
    rng = np.random.default_rng(7 if true_difference > 0 else 8)
    covered = rejections = 0
    for simulation in range(N_SIMULATIONS):
        # Continuous paired differences with a known mean (the grid accepts any values).
        differences = true_difference + rng.normal(0, 0.25, 150)
        result = paired_recall_difference(differences, np.zeros(150), seed=simulation)
        covered += result.ci_low <= true_difference <= result.ci_high
        rejections += result.p_value < 0.05
    low, high = _binomial_range(0.95)
    assert low <= covered <= high, (covered, (low, high))
    # A difference of 0.4 SD over 150 pairs has power above 99.5% (z = 0.4 * sqrt(150) = 4.9).
    assert rejections >= N_SIMULATIONS - 5


@pytest.mark.parametrize(
    ("a", "b"), [(np.zeros(3), np.zeros(4)), (np.zeros((3, 2)), np.zeros((3, 2))), (np.zeros((3, 1)), np.zeros(3))]
)
def test_hits_of_other_lengths_or_not_one_dimensional_are_refused_by_name(a, b):
    with pytest.raises(ValueError, match="^hits_a and hits_b must be 1-d with one entry per pair$"):
        paired_recall_difference(a, b, seed=1)
