"""The WEAT permutation test against scipy.stats.permutation_test (exact and randomised)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from biaswh.compute.weat.permutation import _random_count, weat_permutation_test


def _scipy(s_x, s_y, n_resamples, seed=0):
    return stats.permutation_test(
        (s_x, s_y),
        lambda x, y, axis: x.sum(axis=axis) - y.sum(axis=axis),
        permutation_type="independent",
        alternative="greater",
        vectorized=True,
        n_resamples=n_resamples,
        rng=seed,
    )


@pytest.mark.parametrize("n_x, n_y, shift", [(8, 8, 0.3), (6, 6, 1.0), (5, 7, 0.0), (7, 4, -0.5), (10, 10, 0.4)])
def test_exact_p_equals_scipys_exact_enumeration(n_x, n_y, shift):
    rng = np.random.default_rng(n_x * 100 + n_y)
    s_x, s_y = rng.normal(shift, 1, n_x), rng.normal(0, 1, n_y)
    ours = weat_permutation_test(s_x, s_y, seed=1)
    reference = _scipy(s_x, s_y, np.inf)
    assert ours.method == "exact" and ours.n_permutations == math.comb(n_x + n_y, n_x)
    assert ours.p_value == pytest.approx(reference.pvalue, rel=1e-12)
    assert ours.test_statistic == pytest.approx(reference.statistic)


def test_exact_p_counts_ties_as_extreme_like_scipy():
    s_x, s_y = np.array([1.0, 1.0, 0.5]), np.array([0.5, 1.0, 0.5])
    assert weat_permutation_test(s_x, s_y, seed=1).p_value == pytest.approx(_scipy(s_x, s_y, np.inf).pvalue)


def test_randomised_p_agrees_with_scipy_within_monte_carlo_error():
    rng = np.random.default_rng(3)
    s_x, s_y = rng.normal(0.25, 1, 25), rng.normal(0, 1, 25)
    ours = weat_permutation_test(s_x, s_y, seed=11)
    reference = _scipy(s_x, s_y, 100_000, seed=12)
    assert ours.method == "randomised" and ours.n_permutations == 100_000
    standard_error = math.sqrt(reference.pvalue * (1 - reference.pvalue) / 100_000)
    assert abs(ours.p_value - reference.pvalue) < 6 * standard_error
    k = round(ours.p_value * 100_001) - 1
    assert ours.p_value == pytest.approx((k + 1) / 100_001)


def test_random_partitions_are_drawn_without_replacement():
    # Asking for every one of the C(10, 5) = 252 partitions must visit each exactly once,
    # so the count equals the exact count (drawing with replacement would almost surely not).
    rng = np.random.default_rng(5)
    s_x, s_y = rng.normal(0.5, 1, 5), rng.normal(0, 1, 5)
    scores = np.concatenate([s_x, s_y])
    exact = weat_permutation_test(s_x, s_y, seed=1)
    count = _random_count(scores, 5, float(s_x.sum()), 1e-12, n_permutations=252, rng=np.random.default_rng(9))
    assert count == round(exact.p_value * 252)


def test_the_switch_from_exact_to_randomised_is_at_one_million_partitions():
    rng = np.random.default_rng(1)
    assert weat_permutation_test(rng.normal(size=10), rng.normal(size=10), seed=1).method == "exact"  # 184,756
    big = weat_permutation_test(rng.normal(size=12), rng.normal(size=12), seed=1)  # 2,704,156
    assert big.method == "randomised" and big.n_partitions_total == 2_704_156


def test_randomised_p_is_reproducible_from_its_seed():
    rng = np.random.default_rng(2)
    s_x, s_y = rng.normal(0.1, 1, 20), rng.normal(0, 1, 20)
    first = weat_permutation_test(s_x, s_y, seed=np.random.SeedSequence([42, 1]))
    again = weat_permutation_test(s_x, s_y, seed=np.random.SeedSequence([42, 1]))
    other = weat_permutation_test(s_x, s_y, seed=np.random.SeedSequence([43, 1]))
    assert first.p_value == again.p_value
    assert first.p_value != other.p_value
