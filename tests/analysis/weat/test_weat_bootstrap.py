"""The bootstrap interval for d: seeded, brackets d, narrows with more words."""

from __future__ import annotations

import numpy as np

from analysis.weat.bootstrap import effect_size_interval
from analysis.weat.effect_size import weat_effect_size


def test_interval_brackets_d_is_reproducible_and_narrows_with_more_words():
    rng = np.random.default_rng(4)
    small_x, small_y = rng.normal(0.5, 1, 8), rng.normal(0, 1, 8)
    big_x, big_y = rng.normal(0.5, 1, 200), rng.normal(0, 1, 200)
    small = effect_size_interval(small_x, small_y, seed=1, n_resamples=2000)
    again = effect_size_interval(small_x, small_y, seed=1, n_resamples=2000)
    big = effect_size_interval(big_x, big_y, seed=1, n_resamples=2000)
    assert small == again
    assert small.low < weat_effect_size(small_x, small_y).effect_size < small.high
    assert big.low < weat_effect_size(big_x, big_y).effect_size < big.high
    assert (big.high - big.low) < (small.high - small.low)
    assert (small.method, small.confidence_level, small.n_resamples) == ("percentile", 0.95, 2000)


def test_bca_interval_is_available():
    rng = np.random.default_rng(5)
    result = effect_size_interval(rng.normal(1, 1, 12), rng.normal(0, 1, 12), seed=2, n_resamples=1000, method="BCa")
    assert result.method == "BCa" and result.low < result.high
