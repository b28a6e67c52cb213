"""Percentile bootstrap intervals of column means, many columns over one set of resamples.

A resample draws the n rows with replacement; :func:`resample_counts` holds each resample as
the count of every row's draws, so the resampled means of every column are one matrix product
(``counts @ values / n``) and every column of a row (e.g. every metric and cutoff of a query)
is drawn together.
"""

from __future__ import annotations

import numpy as np


def resample_counts(n_rows: int, *, seed: int, n_resamples: int) -> np.ndarray:
    """How often each of ``n_rows`` rows is drawn in each resample (with replacement).

    Parameters
    ----------
    n_rows : int
        Rows to resample (e.g. queries).
    seed : int
        Seed of the draws.
    n_resamples : int
        Resamples to draw.

    Returns
    -------
    numpy.ndarray
        A (resamples x rows) float array whose rows each sum to ``n_rows``.
    """
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n_rows, size=(n_resamples, n_rows))
    counts = np.zeros((n_resamples, n_rows))
    np.add.at(counts, (np.arange(n_resamples)[:, None], draws), 1.0)
    return counts


def mean_intervals(
    values: np.ndarray, counts: np.ndarray, *, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval of each column's mean.

    Parameters
    ----------
    values : numpy.ndarray
        A (rows x columns) array.
    counts : numpy.ndarray
        The (resamples x rows) draw counts of :func:`resample_counts`.
    confidence : float, default 0.95
        Two-sided level of the intervals.

    Returns
    -------
    tuple of numpy.ndarray
        The lower and the upper limit of every column.
    """
    means = counts @ values / values.shape[0]
    tail = (1 - confidence) / 2
    return np.quantile(means, tail, axis=0), np.quantile(means, 1 - tail, axis=0)
