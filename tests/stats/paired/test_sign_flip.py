"""The sign-flip test against scipy's exact permutation test, and its error rate under the null in simulation.

``scipy.stats.permutation_test`` with ``permutation_type='samples'`` on two paired samples swaps
A and B within pairs, which flips the sign of each difference: with ``n_resamples=inf`` it
enumerates all 2^n assignments, an independent computation of our exact p. The simulations
check the promise a p-value makes: under no difference at most alpha of the p-values fall
below alpha (here with a binomial allowance at the 0.1% level for 400 simulated datasets).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from biaswh.stats.paired.sign_flip import sign_flip_test

ALPHA = 0.05
N_SIMULATIONS = 400


def _scipy_exact(a: np.ndarray, b: np.ndarray) -> float:
    return stats.permutation_test(
        (a, b),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        alternative="two-sided",
        n_resamples=np.inf,
        vectorized=True,
    ).pvalue


@pytest.mark.parametrize("n", [2, 3, 5, 8, 11])
def test_exact_p_equals_scipy_permutation_test_with_ties_and_zeros(n):
    # Metric values on a grid (precision@4-like steps and reciprocal ranks) give ties in |difference|
    # and unchanged queries, the cases where an off-by-one in counting extremes would show.
    rng = np.random.default_rng(n)
    grid = np.array([0, 0.25, 0.5, 1 / 3, 1.0])
    for _ in range(15):
        a, b = rng.choice(grid, size=n), rng.choice(grid, size=n)
        b[0] = a[0]  # at least one zero difference
        expected = _scipy_exact(a, b)
        enumerated = sign_flip_test(a - b, seed=1)
        lattice = sign_flip_test(a - b, seed=1, max_enumerated=1)  # forces the exact lattice path
        assert enumerated.variant == "exact enumeration"
        assert lattice.variant in ("exact lattice", "exact enumeration")  # all-zero differences enumerate
        assert enumerated.p_value == pytest.approx(expected, abs=1e-12)
        assert lattice.p_value == pytest.approx(expected, abs=1e-12)
        assert enumerated.n == n and enumerated.n_nonzero == int(np.count_nonzero(a - b))


def test_six_queries_all_changing_give_the_floor_not_zero():
    result = sign_flip_test(np.full(6, -0.5), seed=1)
    assert result.p_value == result.min_p == 2 / 2**6  # 0.03125: the smallest two-sided p of 6 pairs
    assert result.variant == "exact enumeration" and result.effect_size == -0.5
    assert math.isnan(result.p_t_test)  # zero variance: t is undefined, not p = 0


def test_zero_differences_flip_to_themselves():
    with_zeros = sign_flip_test(np.array([0.5, 0.5, 0.5, 0.0, 0.0, 0.0]), seed=1)
    assert (with_zeros.n, with_zeros.n_nonzero) == (6, 3)
    assert with_zeros.p_value == with_zeros.min_p == 2 / 2**3
    nothing = sign_flip_test(np.zeros(4), seed=1)
    assert nothing.p_value == 1.0 and nothing.n_nonzero == 0


def test_t_test_is_stored_beside_it():
    differences = np.random.default_rng(4).normal(0.1, 1.0, 30)
    result = sign_flip_test(differences, seed=1)
    assert result.p_t_test == pytest.approx(stats.ttest_rel(differences, np.zeros(30)).pvalue, rel=1e-12)


def test_monte_carlo_is_seeded_never_zero_and_close_to_the_exact_p():
    differences = np.random.default_rng(5).normal(0.3, 1.0, 40)
    result = sign_flip_test(differences, seed=7)
    assert result.variant == f"monte carlo B={10_000}, seed 7" and result.min_p == 1 / 10_001
    assert sign_flip_test(differences, seed=7) == result
    # Far beyond any sign assignment: b = 0 draws as extreme, so p = 1 / (B + 1), never 0.
    assert sign_flip_test(np.sqrt(np.arange(2, 42)), seed=7).p_value == 1 / 10_001  # irrational: no lattice
    # Against the exact p of the same data where enumeration is feasible (22 differences, 2^22).
    small = differences[:22]
    exact = sign_flip_test(small, seed=7, max_enumerated=2**22)
    drawn = sign_flip_test(small + 1e-7, seed=7)  # off the lattice: Monte Carlo
    assert drawn.variant.startswith("monte carlo")
    assert abs(drawn.p_value - exact.p_value) < 4 * math.sqrt(exact.p_value * (1 - exact.p_value) / 10_000) + 1e-4
    with pytest.raises(ValueError, match="10,000"):
        sign_flip_test(differences, seed=7, n_resamples=2000)


def _null_rejection_rate(n: int, *, discrete: bool, seed: int, n_simulations: int = N_SIMULATIONS) -> float:
    rng = np.random.default_rng(seed)
    rejected = 0
    for _ in range(n_simulations):
        if discrete:  # precision@5-like differences, symmetric about 0, with many zeros
            differences = rng.choice(np.arange(-5, 6) / 5, size=n)
        else:
            differences = rng.standard_t(3, size=n)  # heavy tails, where the t-test is least safe
        rejected += sign_flip_test(differences, seed=int(rng.integers(2**62))).p_value < ALPHA
    return rejected / n_simulations


@pytest.mark.parametrize(("n", "discrete"), [(6, True), (10, False), (20, True), (64, True), (200, True)])
def test_rejection_rate_under_the_null_stays_at_or_below_alpha(n, discrete):
    rate = _null_rejection_rate(n, discrete=discrete, seed=n)
    allowance = stats.binom.ppf(0.999, N_SIMULATIONS, ALPHA) / N_SIMULATIONS
    print(f"n={n}: rejection rate {rate:.3f} under the null (allowed up to {allowance:.3f})")
    assert rate <= allowance


def test_rejection_rate_under_the_null_with_monte_carlo_draws():
    # Continuous differences at n = 30 cannot be enumerated nor put on a lattice: every p is drawn.
    assert sign_flip_test(np.random.default_rng(0).normal(size=30), seed=1).variant.startswith("monte carlo")
    rate = _null_rejection_rate(30, discrete=False, seed=30, n_simulations=150)
    assert rate <= stats.binom.ppf(0.999, 150, ALPHA) / 150


def test_thousands_of_paired_queries_never_overflow_or_read_zero():
    """SQuAD's 2,000-question evaluation: 2^2000 overflows a float; the exact lattice p stays above 0."""
    result = sign_flip_test(np.full(2000, -0.5), seed=1)
    assert 0 < result.min_p <= result.p_value < 1e-300
    assert sign_flip_test(np.r_[np.full(1000, -0.5), np.full(1000, 0.5)], seed=1).p_value == 1.0
