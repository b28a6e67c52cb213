"""The reported paired mean difference: BCa interval from scipy, its fallback, and its coverage in simulation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from biaswh.stats.paired.mean_difference import (
    MIN_PAIRED_QUERIES,
    is_significant,
    paired_mean_difference,
    paired_status,
)
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
