"""Percentile bootstrap intervals of column means, against an explicit loop and scipy's bootstrap."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from biaswh.stats.mean_bootstrap import mean_intervals, resample_counts


def test_intervals_match_an_explicit_resampling_loop():
    values = np.random.default_rng(1).random((40, 3))
    counts = resample_counts(40, seed=5, n_resamples=2000)
    low, high = mean_intervals(values, counts)
    draws = np.random.default_rng(5).integers(0, 40, size=(2000, 40))
    means = np.array([values[row].mean(axis=0) for row in draws])
    np.testing.assert_allclose(low, np.quantile(means, 0.025, axis=0))
    np.testing.assert_allclose(high, np.quantile(means, 0.975, axis=0))


def test_every_resample_draws_all_rows_and_the_seed_fixes_it():
    counts = resample_counts(25, seed=3, n_resamples=500)
    assert counts.shape == (500, 25) and (counts.sum(axis=1) == 25).all()
    np.testing.assert_array_equal(counts, resample_counts(25, seed=3, n_resamples=500))
    assert not np.array_equal(counts, resample_counts(25, seed=4, n_resamples=500))


def test_intervals_agree_with_scipys_percentile_bootstrap():
    values = np.random.default_rng(7).exponential(size=(200, 1))
    low, high = mean_intervals(values, resample_counts(200, seed=11, n_resamples=20_000), confidence=0.9)
    reference = stats.bootstrap(
        (values[:, 0],), np.mean, confidence_level=0.9, method="percentile", n_resamples=20_000, random_state=2
    ).confidence_interval
    # Different draws: the limits agree to Monte Carlo error, far inside the interval's width.
    assert (low[0], high[0]) == pytest.approx((reference.low, reference.high), abs=0.01)
    assert high[0] - low[0] > 0.15
