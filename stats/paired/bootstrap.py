"""Seeded paired bootstrap interval for a difference in hit rates."""

from __future__ import annotations

import numpy as np

from biaswh.stats.paired.result import TestResult

# Draws held at a time (pairs x resamples of one block): 32 MB of int64.
RESAMPLE_BLOCK_CELLS = 4_194_304


def paired_recall_difference(
    hits_a, hits_b, *, seed: int, n_resamples: int = 2000, confidence: float = 0.95
) -> TestResult:
    """Recall(A) - recall(B) with a percentile bootstrap interval over pairs.

    Pairs are resampled with replacement (both variants of a pair together), so the
    interval respects the pairing. ``n_resamples`` must be at least 2,000. The p-value is
    the percentile-bootstrap test of a zero difference: twice the smaller share of
    resampled means on either side of zero (capped at 1; 1 when all differences are 0).
    A resampled mean within rounding error of zero (1e-12 of the largest difference) counts
    as zero, on both sides: with discrete metrics (precision@5 moves in steps of 0.2) many
    resamples have a mean of exactly zero that floating-point sums miss by ~1e-17.

    Parameters
    ----------
    hits_a, hits_b : array_like
        1 (hit) or 0 per pair, for A and for B.
    seed : int
        Seed of the resamples.
    n_resamples : int, default 2000
        Bootstrap resamples (at least 2,000).
    confidence : float, default 0.95
        Level of the interval.

    Returns
    -------
    TestResult
        The difference, its percentile interval and the bootstrap p.

    Raises
    ------
    ValueError
        When the two are not 1-D with one entry per pair.
    """
    a = np.asarray(hits_a, dtype=float)
    b = np.asarray(hits_b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError("hits_a and hits_b must be 1-d with one entry per pair")
    return paired_recall_difference_grid(
        a[:, None], b[:, None], seed=seed, n_resamples=n_resamples, confidence=confidence
    )[0]


def paired_recall_difference_grid(
    hits_a, hits_b, *, seed: int, n_resamples: int = 2000, confidence: float = 0.95
) -> list[TestResult]:
    """:func:`paired_recall_difference` for many columns (e.g. every k) with the same resamples.

    ``hits_a`` and ``hits_b`` are (pairs x columns). Each resample is a vector of counts of
    how often each pair was drawn, so all columns cost one matrix product.

    Parameters
    ----------
    hits_a, hits_b : array_like
        Pairs × columns of 1 (hit) or 0.
    seed : int
        Seed of the resamples.
    n_resamples : int, default 2000
        Bootstrap resamples (at least 2,000).
    confidence : float, default 0.95
        Level of the intervals.

    Returns
    -------
    list of TestResult
        One per column.

    Raises
    ------
    ValueError
        For fewer than 2,000 resamples, shapes that differ, or no pairs.
    """
    if n_resamples < 2000:
        raise ValueError("use at least 2,000 bootstrap resamples")
    a, b = np.asarray(hits_a, dtype=float), np.asarray(hits_b, dtype=float)
    if a.shape != b.shape or a.ndim != 2:
        raise ValueError("hits_a and hits_b must be (pairs x columns) of the same shape")
    n_pairs = a.shape[0]
    if n_pairs == 0:
        raise ValueError("no pairs to compare")
    differences = a - b
    rng = np.random.default_rng(seed)
    means = np.empty((n_resamples, differences.shape[1]))
    # Resamples are drawn and counted a block at a time, so memory stays flat as pairs grow.
    # The same draws come out as one (n_resamples x n_pairs) call would give, and with 0/1
    # hits every product sum is an exact integer, so the block size changes no result.
    block = max(1, min(n_resamples, RESAMPLE_BLOCK_CELLS // n_pairs))
    for first in range(0, n_resamples, block):
        rows = min(block, n_resamples - first)
        draws = rng.integers(0, n_pairs, size=(rows, n_pairs))
        cells = (draws + np.arange(rows)[:, None] * n_pairs).ravel()
        counts = np.bincount(cells, minlength=rows * n_pairs).reshape(rows, n_pairs).astype(float)
        means[first : first + rows] = counts @ differences / n_pairs
    tail = (1 - confidence) / 2
    lows, highs = np.quantile(means, tail, axis=0), np.quantile(means, 1 - tail, axis=0)
    results = []
    for column in range(differences.shape[1]):
        observed = float(differences[:, column].mean())
        column_means = means[:, column]
        if not np.any(differences[:, column]):
            p_value = 1.0
        else:
            zero = 1e-12 * float(np.max(np.abs(differences[:, column])))
            p_value = min(1.0, 2.0 * min(float(np.mean(column_means <= zero)), float(np.mean(column_means >= -zero))))
        results.append(
            TestResult(
                test="paired bootstrap",
                variant=f"percentile, {n_resamples:,} resamples, seed {seed}",
                n=n_pairs,
                statistic=observed,
                p_value=p_value,
                effect_name="recall difference (A - B)",
                effect_size=observed,
                ci_low=float(lows[column]),
                ci_high=float(highs[column]),
                confidence=confidence,
            )
        )
    return results
