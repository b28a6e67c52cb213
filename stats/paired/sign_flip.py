"""The paired sign-flip randomization test of a mean per-query difference, exact wherever feasible.

Under the null hypothesis that the two systems are exchangeable within each query, every
per-query difference is equally likely to have either sign. The test statistic is the mean
difference; the two-sided p-value is the share of the 2^n sign assignments whose mean is at
least as far from zero as the observed one. A zero difference flips to itself, so only the
``n_nonzero`` nonzero differences are flipped (the share is the same as over all 2^n).

Three ways to get that share, tried in this order:

- **exact enumeration** when 2^n_nonzero is at most ``max_enumerated`` (2^20 by default): the
  sums of two halves are enumerated and matched by sorting (meet in the middle);
- **exact lattice** when the differences are multiples of one step (metrics at a cutoff k move
  in steps of 1/k; reciprocal ranks in steps of 1/2520 up to rank 10): the distribution of the
  integer sum is built one difference at a time;
- **monte carlo** otherwise: ``n_resamples`` (at least 10,000) seeded sign draws and
  p = (b + 1) / (B + 1), which is never 0.

``min_p`` is the smallest p the method can give: 2 / 2^n_nonzero for the exact test (every
difference of the same sign), 1 / (B + 1) for Monte Carlo. The paired t-test is stored beside
it (``p_t_test``), as ranx offers both; it assumes normal means and is reported, not used.
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction

import numpy as np

from biaswh.stats.paired.result import TestResult
from biaswh.warehouse.deferred_modules import scipy_stats as stats

MIN_RESAMPLES = 10_000
# Lattice sums longer than this many cells (times differences) fall back to Monte Carlo.
LATTICE_MAX_CELLS = 50_000_000
# Differences are stored to ~12 digits; a rational with a denominator up to this is matched.
LATTICE_MAX_DENOMINATOR = 5040
# Two sums within this share of the largest |difference| are a tie (floating-point sums of
# exchangeable differences miss exact ties by ~1e-17).
TIE_TOLERANCE = 1e-9


def _enumerated_p(nonzero: np.ndarray) -> float:
    """Exact share of sign assignments with |sum| >= |observed sum|, by meet in the middle."""
    half = len(nonzero) // 2

    def all_sums(values: np.ndarray) -> np.ndarray:
        signs = 1 - 2 * ((np.arange(2 ** len(values))[:, None] >> np.arange(len(values))) & 1)
        return signs @ values

    left, right = all_sums(nonzero[:half]), np.sort(all_sums(nonzero[half:]))
    threshold = abs(nonzero.sum()) - TIE_TOLERANCE * np.abs(nonzero).max()
    at_least = len(right) - np.searchsorted(right, threshold - left, side="left")
    at_most = np.searchsorted(right, -threshold - left, side="right")
    extreme = at_least + at_most if threshold > 0 else np.full(len(left), len(right))
    return min(1.0, float(extreme.sum()) / 2.0 ** len(nonzero))


def _lattice_steps(nonzero: np.ndarray) -> np.ndarray | None:
    """The differences as integer multiples of one step, or None when they are not on a small lattice."""
    fractions = [Fraction(float(x)).limit_denominator(LATTICE_MAX_DENOMINATOR) for x in np.abs(nonzero)]
    if any(abs(float(f) - abs(x)) > TIE_TOLERANCE * max(1.0, abs(x)) for f, x in zip(fractions, nonzero)):
        return None
    # A nonzero difference within the tolerance of 0 would be a step of 0: on no lattice, drawn.
    if not all(fractions):
        return None
    denominator = math.lcm(*(f.denominator for f in fractions))
    integers = [f.numerator * (denominator // f.denominator) for f in fractions]
    common = math.gcd(*integers)
    steps = [i // common for i in integers]
    # Counted in Python's integers: a difference of 1e9 in steps of 1/5040 is past int64.
    if sum(steps) * len(steps) > LATTICE_MAX_CELLS:
        return None
    return np.array(steps, dtype=np.int64)


def _lattice_p(steps: np.ndarray, observed_sum: int) -> float:
    """Exact two-sided p from the distribution of the sum of +-steps (a subset-sum recursion).

    The sum with signs s is total - 2 * (sum of the steps flipped negative); ``counts`` holds
    the probability of each subset sum, built one step at a time.

    Returns
    -------
    float
        The p-value.
    """
    total = int(steps.sum())
    counts = np.zeros(total + 1)
    counts[0] = 1.0
    for step in steps:
        shifted = np.zeros_like(counts)
        shifted[step:] = counts[:-step]
        counts = 0.5 * (counts + shifted)
    sums = total - 2 * np.arange(total + 1)
    return min(1.0, float(counts[np.abs(sums) >= abs(observed_sum)].sum()))


def _monte_carlo_p(nonzero: np.ndarray, *, seed: int, n_resamples: int) -> float:
    """The p-value (b + 1) / (B + 1) over ``n_resamples`` seeded random sign assignments."""
    rng = np.random.default_rng(seed)
    threshold = abs(nonzero.sum()) - TIE_TOLERANCE * np.abs(nonzero).max()
    extreme = 0
    block = max(1, 4_000_000 // len(nonzero))
    for first in range(0, n_resamples, block):
        rows = min(block, n_resamples - first)
        signs = rng.integers(0, 2, size=(rows, len(nonzero)), dtype=np.int8) * 2 - 1
        extreme += int(np.count_nonzero(np.abs(signs @ nonzero) >= threshold))
    return (extreme + 1) / (n_resamples + 1)


def _t_test_p(differences: np.ndarray) -> float:
    """Two-sided paired t-test p; NaN where the t statistic is undefined (one query, or zero variance)."""
    if len(differences) < 2 or np.ptp(differences) == 0:
        return math.nan
    return float(stats.ttest_1samp(differences, 0.0).pvalue)


def sign_flip_test(
    differences,
    *,
    seed: int,
    n_resamples: int = MIN_RESAMPLES,
    max_enumerated: int = 2**20,
) -> TestResult:
    """Two-sided sign-flip randomization test that the mean paired difference is zero.

    Parameters
    ----------
    differences
        Per-query (or per-pair) differences, A minus B; at least one.
    seed
        Seed of the Monte Carlo draws (derive it from the study seed); unused when exact.
    n_resamples
        Monte Carlo draws when no exact method is feasible (at least 10,000).
    max_enumerated
        The largest 2^n_nonzero enumerated in full.

    Returns
    -------
    TestResult
        With ``variant`` naming the method (``exact enumeration``, ``exact lattice`` or
        ``monte carlo B=...``), ``n``, ``n_nonzero``, ``min_p``, ``p_t_test``; the interval is not
        this test's (NaN): see :func:`biaswh.stats.paired.mean_difference.paired_mean_difference`.

    Raises
    ------
    ValueError
        For fewer Monte Carlo draws than the floor, or no difference.
    """
    if n_resamples < MIN_RESAMPLES:
        raise ValueError(f"use at least {MIN_RESAMPLES:,} Monte Carlo draws")
    values = np.asarray(differences, dtype=float)
    if values.ndim != 1 or len(values) == 0 or not np.all(np.isfinite(values)):
        raise ValueError("differences must be a non-empty 1-d array of finite numbers")
    scale = float(np.abs(values).max())
    nonzero = values[np.abs(values) > TIE_TOLERANCE * scale] if scale > 0 else values[:0]
    n_nonzero = len(nonzero)
    # 2^n overflows a float past n = 1023 and 2/2^n underflows to 0 past n = 1075: compare
    # exponents, and keep the floor at the smallest normal float so no stored p is ever 0.
    enumerable = n_nonzero <= math.log2(max_enumerated)
    floor = max(math.ldexp(1.0, 1 - n_nonzero), sys.float_info.min)
    steps = None if n_nonzero == 0 or enumerable else _lattice_steps(nonzero)
    if n_nonzero == 0:
        variant, p_value, min_p = "exact enumeration", 1.0, 1.0
    elif enumerable:
        variant, p_value, min_p = "exact enumeration", _enumerated_p(nonzero), min(1.0, floor)
    elif steps is not None:
        observed = int(np.sum(np.where(nonzero > 0, steps, -steps)))
        variant, min_p = "exact lattice", floor
        p_value = max(_lattice_p(steps, observed), floor)
    else:
        variant = f"monte carlo B={n_resamples}, seed {seed}"
        p_value, min_p = _monte_carlo_p(nonzero, seed=seed, n_resamples=n_resamples), 1.0 / (n_resamples + 1)
    mean = float(values.mean())
    return TestResult(
        test="sign-flip randomization",
        variant=variant,
        n=len(values),
        statistic=mean,
        p_value=p_value,
        effect_name="mean difference (A - B)",
        effect_size=mean,
        ci_low=math.nan,
        ci_high=math.nan,
        n_nonzero=n_nonzero,
        min_p=min_p,
        p_t_test=_t_test_p(values),
    )
