"""The reported paired mean difference: BCa interval from scipy, its fallback, and its coverage in simulation."""

from __future__ import annotations

import warnings
from decimal import Decimal

import numpy as np
import pytest
from scipy import stats

from biaswh.stats.paired.mean_difference import (
    MIN_PAIRED_QUERIES,
    is_significant,
    paired_mean_difference,
    paired_status,
)
from biaswh.stats.paired.sign_flip import sign_flip_test
from biaswh.warehouse.settings.random_seeds import derive_seed

N_SIMULATIONS = 200
TRUE_DIFFERENCE = 0.1


def test_interval_is_scipy_bca_with_the_derived_seed():
    rng = np.random.default_rng(8)
    a, b = rng.random(25), rng.random(25)
    result = paired_mean_difference(a, b, seed=99)
    reference = stats.bootstrap(
        (a - b,),
        np.mean,
        n_resamples=2000,
        method="BCa",
        vectorized=True,
        rng=np.random.default_rng(derive_seed(99, "bootstrap")),
    ).confidence_interval
    assert (result.ci_low, result.ci_high) == (pytest.approx(reference.low, abs=1e-12), pytest.approx(reference.high))
    assert result.ci_method == f"BCa bootstrap, 2,000 resamples, seed {derive_seed(99, 'bootstrap')}"


def test_equal_differences_fall_back_to_a_named_percentile_interval():
    result = paired_mean_difference(np.full(8, 0.3), np.full(8, 0.1), seed=1)
    assert (result.ci_low, result.ci_high) == pytest.approx((0.2, 0.2))
    assert result.ci_method == "percentile bootstrap (BCa degenerate: every difference equal)"
    one = paired_mean_difference(np.array([0.4]), np.array([0.1]), seed=1)
    assert one.p_value == 1.0 and one.min_p == 1.0 and paired_status(one.n) == "too few queries"


def test_minimum_n_rule():
    assert MIN_PAIRED_QUERIES == 6 and 2 / 2**MIN_PAIRED_QUERIES < 0.05 < 2 / 2 ** (MIN_PAIRED_QUERIES - 1)
    assert [paired_status(n) for n in (0, 1, 5, 6, 64)] == [
        "not testable", "too few queries", "too few queries", "tested", "tested",
    ]  # fmt: skip
    # Five queries all changing reach p = 0.0625: below alpha = 0.1, still never flagged.
    five = paired_mean_difference(np.ones(5), np.zeros(5), seed=1)
    assert five.p_value == 0.0625 and not is_significant(five, alpha=0.1)


@pytest.mark.parametrize(("n", "lowest"), [(10, 0.8), (64, 0.9)])
def test_interval_coverage_is_roughly_nominal(n, lowest):
    """Coverage is reported (run with -s), asserted loosely: a bootstrap interval under-covers at small n.

    Measured with these seeds: 85.5% at n = 10, 95.5% at n = 64, for a nominal 95%.
    """
    # Skewed per-query changes (a gamma shifted to mean TRUE_DIFFERENCE), as metric changes often are.
    rng = np.random.default_rng(n)
    covered = 0
    for _ in range(N_SIMULATIONS):
        changes = rng.gamma(2.0, 0.1, n) - 0.2 + TRUE_DIFFERENCE
        result = paired_mean_difference(changes, np.zeros(n), seed=int(rng.integers(2**62)))
        covered += result.ci_low <= TRUE_DIFFERENCE <= result.ci_high
    coverage = covered / N_SIMULATIONS
    print(f"n={n}: BCa 95% interval covered the true difference in {coverage:.1%} of {N_SIMULATIONS} datasets")
    assert coverage >= lowest


def test_significance_needs_a_result_enough_queries_and_p_strictly_below_alpha():
    six = paired_mean_difference(np.ones(6), np.zeros(6), seed=1)  # exact p = 2 / 2^6
    assert six.p_value == 0.03125 and paired_status(six.n) == "tested"
    assert is_significant(six, alpha=0.05) and not is_significant(six, alpha=0.03125)
    assert not is_significant(None, alpha=0.05)


def test_two_differing_queries_get_scipys_bca_interval():
    a, b = np.array([0.9, 0.2]), np.array([0.1, 0.3])
    result = paired_mean_difference(a, b, seed=5)
    seed = derive_seed(5, "bootstrap")
    reference = stats.bootstrap(
        (a - b,), np.mean, n_resamples=2000, method="BCa", vectorized=True, rng=np.random.default_rng(seed)
    ).confidence_interval
    assert result.ci_method == f"BCa bootstrap, 2,000 resamples, seed {seed}"
    assert (result.ci_low, result.ci_high) == (pytest.approx(reference.low), pytest.approx(reference.high))


def test_the_bca_interval_is_at_the_asked_level():
    rng = np.random.default_rng(8)
    a, b = rng.random(25), rng.random(25)
    result = paired_mean_difference(a, b, seed=99, confidence=0.9)
    reference = stats.bootstrap(
        (a - b,), np.mean, n_resamples=2000, confidence_level=0.9, method="BCa", vectorized=True,
        rng=np.random.default_rng(derive_seed(99, "bootstrap")),
    ).confidence_interval  # fmt: skip
    assert (result.ci_low, result.ci_high) == (pytest.approx(reference.low), pytest.approx(reference.high))
    assert result.confidence == 0.9 and result.ci_low > paired_mean_difference(a, b, seed=99).ci_low


def test_an_undefined_acceleration_falls_back_to_scipys_percentile_interval_at_the_asked_level():
    # differences near 1e-170: their jackknife spreads square to 0 (underflow), so BCa's acceleration is 0/0
    differences = np.random.default_rng(8).random(10) * 1e-170
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy's 0/0 in the acceleration
        result = paired_mean_difference(differences, np.zeros(10), seed=3, n_resamples=2500, confidence=0.8)
    seed = derive_seed(3, "bootstrap")
    assert result.ci_method == f"percentile bootstrap (BCa degenerate), 2,500 resamples, seed {seed}"
    reference = stats.bootstrap(
        (differences,), np.mean, n_resamples=2500, confidence_level=0.8, method="percentile", vectorized=True,
        rng=np.random.default_rng(seed),
    ).confidence_interval  # fmt: skip
    assert (result.ci_low, result.ci_high) == (reference.low, reference.high) and result.ci_low < result.ci_high


def test_the_sign_flip_test_gets_its_own_derived_seed_and_the_asked_draws():
    # 30 continuous differences: no exact method is feasible, so the p is a seeded Monte Carlo share
    differences = np.random.default_rng(6).normal(0.15, 1.0, 30)
    result = paired_mean_difference(differences, np.zeros(30), seed=17, n_permutations=12_000)
    test = sign_flip_test(differences, seed=derive_seed(17, "sign flip"), n_resamples=12_000)
    assert result.variant == test.variant and result.variant.startswith("monte carlo")
    assert (result.p_value, result.min_p, result.statistic) == (test.p_value, test.min_p, test.statistic)
    assert result.min_p == 1 / 12_001 and 0.05 < result.p_value < 0.9
    other_seed = sign_flip_test(differences, seed=derive_seed(18, "sign flip"), n_resamples=12_000)
    assert other_seed.p_value != result.p_value


def test_decimal_metrics_as_duckdb_returns_them_give_the_float_result():
    # DuckDB hands DECIMAL columns to Python as decimal.Decimal
    a, b = [Decimal("0.25"), Decimal("0.5"), Decimal("1")] * 4, [Decimal("0"), Decimal("0.5"), Decimal("0.75")] * 4
    expected = paired_mean_difference([float(v) for v in a], [float(v) for v in b], seed=4)
    assert paired_mean_difference(a, [float(v) for v in b], seed=4) == expected
    assert paired_mean_difference([float(v) for v in a], b, seed=4) == expected


@pytest.mark.parametrize(
    ("a", "b"), [(np.zeros(3), np.zeros(4)), (np.zeros((3, 2)), np.zeros((3, 2))), (np.zeros(0), np.zeros(0))]
)
def test_lists_of_other_lengths_or_shapes_or_empty_are_refused(a, b):
    message = "^values_a and values_b must be non-empty 1-d arrays of the same length$"
    with pytest.raises(ValueError, match=message):
        paired_mean_difference(a, b, seed=1)


def test_fewer_than_2000_resamples_are_refused():
    with pytest.raises(ValueError, match="^use at least 2,000 bootstrap resamples$"):
        paired_mean_difference(np.ones(8), np.zeros(8), seed=1, n_resamples=1999)
