"""The metrics' shared bootstrap interval and evaluate against resamples drawn by hand from the same seed
(X's multinomial resamples then Y's, 4,096 at a time): undefined resamples left out, one seed for the
interval and the p apart, an undefined statistic refused."""

from __future__ import annotations

import numpy as np
import pytest

from biaswh.compute.weat.resampling import (
    ResamplingSettings,
    bootstrap_interval,
    evaluate,
    percentile_interval,
    permutation_p,
)


def _distance_kernel(x_mean: np.ndarray, y_mean: np.ndarray) -> np.ndarray:
    """A statistic of both means that is neither linear nor symmetric in X and Y."""
    return np.linalg.norm(x_mean - 0.5 * y_mean, axis=1) - y_mean[:, 0]


def _hand_drawn_interval(features_x, features_y, kernel, *, seed, n_resamples: int, level: float):
    """X's multinomial resamples then Y's, 4,096 at a time; the central percentile interval of the finite values."""
    rng = np.random.default_rng(seed)
    values = []
    for start in range(0, n_resamples, 4096):
        size = min(4096, n_resamples - start)
        counts_x = rng.multinomial(len(features_x), [1 / len(features_x)] * len(features_x), size=size)
        counts_y = rng.multinomial(len(features_y), [1 / len(features_y)] * len(features_y), size=size)
        for row_x, row_y in zip(counts_x, counts_y):
            x_mean = np.repeat(features_x, row_x, axis=0).mean(axis=0)
            y_mean = np.repeat(features_y, row_y, axis=0).mean(axis=0)
            values.append(kernel(x_mean[None], y_mean[None])[0])
    values = np.array(values)
    tail = (1 - level) / 2 * 100
    return tuple(np.percentile(values[np.isfinite(values)], [tail, 100 - tail]))


def test_undefined_resamples_are_left_out_of_the_interval_silently():
    # Resamples drawing one score only in X have no spread: 0/0 (invalid) or x/0 (divide), no warning.
    def ratio(x_mean, y_mean):
        return (x_mean[:, 0] - y_mean[:, 0]) / (x_mean[:, 1] - x_mean[:, 0] ** 2)

    features_x = np.array([[1.0, 1.0], [2.0, 4.0]])  # (score, its square): the variance is 0 when one is drawn twice
    features_y = np.array([[1.0, 1.0], [0.0, 0.0], [1.0, 1.0]])
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = _hand_drawn_interval(features_x, features_y, ratio, seed=4, n_resamples=400, level=0.9)
        by_hand = [ratio(np.array([[s, s * s]]), np.array([[y, y]]))[0] for s in (1.0, 2.0) for y in (0.0, 1.0)]
    assert {"inf", "nan"} <= {str(abs(v)) for v in by_hand}  # both kinds occur
    assert bootstrap_interval(
        features_x, features_y, ratio, seed=4, n_resamples=400, confidence_level=0.9
    ) == pytest.approx(expected, abs=1e-12)


def test_the_bootstrap_interval_equals_hand_drawn_resamples_over_more_than_one_chunk():
    rng = np.random.default_rng(8)
    features_x, features_y = rng.normal(0.4, 1, (6, 2)), rng.normal(0, 1, (9, 2))
    result = bootstrap_interval(
        features_x, features_y, _distance_kernel, seed=np.random.SeedSequence([3, 1]), n_resamples=4200,
        confidence_level=0.9,
    )  # fmt: skip
    expected = _hand_drawn_interval(
        features_x, features_y, _distance_kernel, seed=np.random.SeedSequence([3, 1]), n_resamples=4200, level=0.9
    )
    assert result == pytest.approx(expected, abs=1e-12)
    # One score a word (a 1-d array) is one feature.
    scores = bootstrap_interval(
        features_x[:, 0], features_y[:, 0], lambda xm, ym: (xm - ym)[:, 0], seed=5, n_resamples=300,
        confidence_level=0.8,
    )  # fmt: skip
    by_hand = _hand_drawn_interval(
        features_x[:, :1], features_y[:, :1], lambda xm, ym: (xm - ym)[:, 0], seed=5, n_resamples=300, level=0.8
    )
    assert scores == pytest.approx(by_hand, abs=1e-12)


def test_the_percentile_interval_leaves_out_undefined_resamples_and_refuses_when_none_is_left():
    values = np.array([np.nan, 3.0, np.inf, 1.0, -np.inf, 2.0, 4.0, 0.0])
    assert percentile_interval(values, 0.5) == (1.0, 3.0)  # the quartiles of 0, 1, 2, 3, 4
    with pytest.raises(ValueError, match="^no bootstrap resample has a finite value$"):
        percentile_interval(np.array([np.nan, np.inf]), 0.95)


def test_evaluate_seeds_the_interval_and_the_p_apart_from_one_seed():
    rng = np.random.default_rng(12)
    features_x, features_y = rng.normal(0.5, 1, (5, 2)), rng.normal(0, 1, (6, 2))
    settings = ResamplingSettings(confidence_level=0.9, bootstrap_resamples=400, exact_limit=100, n_permutations=299)
    value, interval, p = evaluate(
        features_x, features_y, _distance_kernel, alternative="two-sided", seed=21, settings=settings
    )
    assert value == pytest.approx(_distance_kernel(features_x.mean(0)[None], features_y.mean(0)[None])[0], abs=1e-15)
    assert interval == bootstrap_interval(
        features_x, features_y, _distance_kernel, seed=np.random.SeedSequence([21, 1]), n_resamples=400,
        confidence_level=0.9,
    )  # fmt: skip
    assert p == permutation_p(
        features_x, features_y, _distance_kernel, alternative="two-sided", seed=np.random.SeedSequence([21, 2]),
        exact_limit=100, n_permutations=299,
    )  # fmt: skip
    assert p.method == "randomised"  # C(11, 5) = 462 > 100
    # Without an alternative there is no p, and the interval is the same.
    assert evaluate(features_x, features_y, _distance_kernel, alternative=None, seed=21, settings=settings) == (
        value, interval, None,
    )  # fmt: skip


def test_evaluate_refuses_an_undefined_statistic():
    def undefined(x_mean, y_mean):
        return np.full(len(x_mean), np.nan)

    with pytest.raises(ValueError, match="^the statistic is undefined for these words$"):
        evaluate(np.ones((3, 2)), np.zeros((3, 2)), undefined, alternative=None, seed=1, settings=ResamplingSettings())
