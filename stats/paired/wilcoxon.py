"""Wilcoxon signed-rank test on the rank of the gold document, with an explicit miss policy.

Policies:

- ``miss_as_depth_plus_one`` (recommended): a gold document not found within the depth
  counts as rank depth + 1, so no pair is dropped; zero differences are kept and handled
  by Pratt's method.
- ``original``: the original notebook's behaviour, for comparison: pairs where either
  variant missed are dropped, and zero differences are dropped (Wilcoxon's method).

The effect size is the matched-pairs rank-biserial correlation r = (W+ - W-) / (W+ + W-),
positive when variant A ranks the gold document worse (higher rank number) than B.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from biaswh.stats.paired.bootstrap import RESAMPLE_BLOCK_CELLS
from biaswh.stats.paired.result import TestResult
from biaswh.warehouse.deferred_modules import scipy_stats as stats

MissPolicy = Literal["miss_as_depth_plus_one", "original"]


def rank_biserial(differences: np.ndarray) -> float:
    """Matched-pairs rank-biserial correlation of non-zero differences (0 when there are none)."""
    nonzero = differences[differences != 0]
    if nonzero.size == 0:
        return 0.0
    ranks = stats.rankdata(np.abs(nonzero))
    positive, negative = ranks[nonzero > 0].sum(), ranks[nonzero < 0].sum()
    return float((positive - negative) / (positive + negative))


def rank_biserial_rows(differences: np.ndarray) -> np.ndarray:
    """:func:`rank_biserial` of every row of a 2-D array at once, equal to it bit for bit.

    Zero differences rank below every non-zero one, so ranking whole rows gives each non-zero
    difference its rank among the non-zero ones plus the row's count of zeros. Ranks are
    multiples of one half, so their sums are exact in any order.

    Parameters
    ----------
    differences : numpy.ndarray
        One row of paired differences per resample.

    Returns
    -------
    numpy.ndarray
        The rank-biserial r of each row.
    """
    ranks = stats.rankdata(np.abs(differences), axis=1) - (differences == 0).sum(axis=1, keepdims=True)
    positive = np.where(differences > 0, ranks, 0.0).sum(axis=1)
    negative = np.where(differences < 0, ranks, 0.0).sum(axis=1)
    total = positive + negative
    return np.divide(positive - negative, total, out=np.zeros_like(total), where=total > 0)


def _bootstrap_interval(differences: np.ndarray, *, seed: int, n_resamples: int, confidence: float):
    if differences.size == 0 or not np.any(differences):
        return 0.0, 0.0
    rng = np.random.default_rng(seed)
    # Drawn a block of resamples at a time (the same draws as one call), so memory stays flat.
    block = max(1, min(n_resamples, RESAMPLE_BLOCK_CELLS // differences.size))
    values = np.empty(n_resamples)
    for first in range(0, n_resamples, block):
        rows = min(block, n_resamples - first)
        draws = rng.integers(0, differences.size, size=(rows, differences.size))
        values[first : first + rows] = rank_biserial_rows(differences[draws])
    tail = (1 - confidence) / 2
    return float(np.quantile(values, tail)), float(np.quantile(values, 1 - tail))


def wilcoxon_rank_of_gold(
    ranks_a,
    ranks_b,
    *,
    depth: int,
    policy: MissPolicy = "miss_as_depth_plus_one",
    seed: int,
    n_resamples: int = 2000,
    confidence: float = 0.95,
) -> TestResult:
    """Paired Wilcoxon signed-rank test of gold-document ranks (A minus B).

    Parameters
    ----------
    ranks_a, ranks_b
        Rank of the gold document per pair (1 = top); ``None``/NaN = not found
        within ``depth``.
    depth
        Retrieval depth; under the recommended policy a miss counts as ``depth + 1``.
    policy
        ``miss_as_depth_plus_one`` (Pratt zero handling) or ``original``.
    seed
        Seed of the bootstrap interval for the rank-biserial effect size.
    n_resamples
        Bootstrap resamples of that interval.
    confidence
        Level of that interval.

    Returns
    -------
    TestResult
        The signed-rank statistic and p, with its n under the policy and the rank-biserial r.

    Raises
    ------
    ValueError
        When the two rank lists differ in length.
    """
    a = np.array([math.nan if r is None else r for r in ranks_a], dtype=float)
    b = np.array([math.nan if r is None else r for r in ranks_b], dtype=float)
    if a.shape != b.shape:
        raise ValueError("ranks_a and ranks_b must have one entry per pair")
    if policy == "miss_as_depth_plus_one":
        a, b = np.nan_to_num(a, nan=depth + 1), np.nan_to_num(b, nan=depth + 1)
        differences, zero_method, variant = a - b, "pratt", "signed-rank, miss = depth + 1, Pratt zeros"
    else:
        both_found = ~np.isnan(a) & ~np.isnan(b)
        differences = (a - b)[both_found]
        differences = differences[differences != 0]
        zero_method, variant = "wilcox", "signed-rank, misses and zero differences dropped (original)"
    n_used = int(differences.size)
    low, high = _bootstrap_interval(differences, seed=seed, n_resamples=n_resamples, confidence=confidence)
    effect = rank_biserial(differences)
    if n_used == 0 or not np.any(differences):
        return TestResult(
            test="wilcoxon",
            variant=variant,
            n=n_used,
            statistic=math.nan,
            p_value=1.0,
            effect_name="rank-biserial r (A worse > 0)",
            effect_size=0.0,
            ci_low=low,
            ci_high=high,
            confidence=confidence,
            note="no non-zero rank differences: no evidence either way",
        )
    result = stats.wilcoxon(differences, zero_method=zero_method, alternative="two-sided")
    return TestResult(
        test="wilcoxon",
        variant=variant,
        n=n_used,
        statistic=float(result.statistic),
        p_value=float(result.pvalue),
        effect_name="rank-biserial r (A worse > 0)",
        effect_size=effect,
        ci_low=low,
        ci_high=high,
        confidence=confidence,
    )
