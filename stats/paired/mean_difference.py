"""A paired mean difference as the warehouse reports it: sign-flip p, t-test p, BCa interval, and what n allows.

The p-value is the sign-flip randomization test's (stats/paired/sign_flip.py), exact
wherever feasible; the bootstrap makes the interval only, as BCa (scipy.stats.bootstrap's,
seeded, its jackknife in closed form: :mod:`biaswh.stats.bca_mean`). BCa needs spread in the data:
where it is degenerate (every difference equal, fewer than 2 queries, or an undefined
acceleration) the percentile interval is used and named so.

The minimum-n rule: a change is flagged significant only when it was tested on at least
``MIN_PAIRED_QUERIES`` paired queries and its p is below alpha. Six is the smallest n at which
the exact two-sided test can go below 0.05 at all (2 / 2^6 = 0.031); below it a change is shown
with its interval but never flagged. With no paired query there is nothing to test.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Literal

import numpy as np

from biaswh.stats.bca_mean import bca_mean_interval
from biaswh.stats.paired.result import TestResult
from biaswh.stats.paired.sign_flip import MIN_RESAMPLES, sign_flip_test
from biaswh.warehouse.deferred_modules import scipy_stats as stats
from biaswh.warehouse.settings.random_seeds import derive_seed

MIN_PAIRED_QUERIES = 6
TestStatus = Literal["tested", "too few queries", "not testable"]


def paired_status(n_paired: int) -> TestStatus:
    """``tested`` from ``MIN_PAIRED_QUERIES`` paired queries, ``too few queries`` below, ``not testable`` at 0."""
    if n_paired == 0:
        return "not testable"
    return "tested" if n_paired >= MIN_PAIRED_QUERIES else "too few queries"


def is_significant(result: TestResult | None, *, alpha: float) -> bool:
    """The one significance rule: enough paired queries and p below alpha (never below what n allows)."""
    return result is not None and paired_status(result.n) == "tested" and result.p_value < alpha


def _interval(differences: np.ndarray, *, seed: int, n_resamples: int, confidence: float) -> tuple[float, float, str]:
    """BCa bootstrap interval of the mean, or the percentile one where BCa is degenerate."""
    if len(differences) < 2 or np.ptp(differences) == 0:
        # Every resample has the same mean: the percentile interval is that one point.
        value = float(differences.mean())
        return value, value, "percentile bootstrap (BCa degenerate: every difference equal)"
    # scipy.stats.bootstrap's BCa, its jackknife in closed form (stats/bca_mean.py)
    low, high = bca_mean_interval(
        differences, rng=np.random.default_rng(seed), n_resamples=n_resamples, confidence=confidence
    )
    name = "BCa bootstrap"
    if not (math.isfinite(low) and math.isfinite(high)):
        # scipy returns NaN where BCa's acceleration is undefined; the percentile interval instead
        result = stats.bootstrap(
            (differences,),
            np.mean,
            n_resamples=n_resamples,
            confidence_level=confidence,
            method="percentile",
            vectorized=True,
            rng=np.random.default_rng(seed),
        )
        low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
        name = "percentile bootstrap (BCa degenerate)"
    return low, high, f"{name}, {n_resamples:,} resamples, seed {seed}"


def paired_mean_difference(
    values_a,
    values_b,
    *,
    seed: int,
    n_resamples: int = 2000,
    n_permutations: int = MIN_RESAMPLES,
    confidence: float = 0.95,
) -> TestResult:
    """Mean of ``values_a - values_b`` (paired, one entry per query) with its test and interval.

    Parameters
    ----------
    values_a, values_b
        The metric per query of A and of B, in the same query order.
    seed
        The comparison's seed; the interval's and the test's seeds are derived from it.
    n_resamples
        Bootstrap resamples of the interval (at least 2,000).
    n_permutations
        Monte Carlo sign draws, used only where no exact test is feasible.
    confidence
        Level of the interval.

    Returns
    -------
    TestResult
        The sign-flip test (p, method in ``variant``, ``n``, ``n_nonzero``, ``min_p``,
        ``p_t_test``) with the interval and its ``ci_method`` filled in.

    Raises
    ------
    ValueError
        For fewer than 2,000 resamples, or lists that differ in length or are empty.
    """
    if n_resamples < 2000:
        raise ValueError("use at least 2,000 bootstrap resamples")
    a, b = np.asarray(values_a, dtype=float), np.asarray(values_b, dtype=float)
    if a.shape != b.shape or a.ndim != 1 or len(a) == 0:
        raise ValueError("values_a and values_b must be non-empty 1-d arrays of the same length")
    differences = a - b
    test = sign_flip_test(differences, seed=derive_seed(seed, "sign flip"), n_resamples=n_permutations)
    low, high, ci_method = _interval(
        differences, seed=derive_seed(seed, "bootstrap"), n_resamples=n_resamples, confidence=confidence
    )
    return replace(test, ci_low=low, ci_high=high, confidence=confidence, ci_method=ci_method)
