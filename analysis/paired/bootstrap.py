"""Seeded paired bootstrap interval for a difference in hit rates."""

from __future__ import annotations

import numpy as np

from analysis.paired.result import TestResult


def paired_recall_difference(hits_a, hits_b, *, seed: int, n_resamples: int = 2000,
                             confidence: float = 0.95) -> TestResult:
    """Recall(A) - recall(B) with a percentile bootstrap interval over pairs.

    Pairs are resampled with replacement (both variants of a pair together), so the
    interval respects the pairing. ``n_resamples`` must be at least 2,000. The p-value is
    the percentile-bootstrap test of a zero difference: twice the smaller share of
    resampled means on either side of zero (capped at 1; 1 when all differences are 0).
    """
    if n_resamples < 2000:
        raise ValueError("use at least 2,000 bootstrap resamples")
    a = np.asarray(hits_a, dtype=float)
    b = np.asarray(hits_b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError("hits_a and hits_b must be 1-d with one entry per pair")
    if a.size == 0:
        raise ValueError("no pairs to compare")
    differences = a - b
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, differences.size, size=(n_resamples, differences.size))
    means = differences[draws].mean(axis=1)
    tail = (1 - confidence) / 2
    if not np.any(differences):
        p_value = 1.0
    else:
        p_value = min(1.0, 2.0 * min(float(np.mean(means <= 0)), float(np.mean(means >= 0))))
    return TestResult(test="paired bootstrap", variant=f"percentile, {n_resamples} resamples, seed {seed}",
                      n=int(differences.size), statistic=float(differences.mean()), p_value=p_value,
                      effect_name="recall difference (A - B)", effect_size=float(differences.mean()),
                      ci_low=float(np.quantile(means, tail)), ci_high=float(np.quantile(means, 1 - tail)),
                      confidence=confidence)
