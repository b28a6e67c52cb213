"""The closed-form BCa interval of a mean equals scipy.stats.bootstrap's, in linear memory."""

import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from biaswh.stats import bca_mean
from biaswh.stats.bca_mean import bca_mean_interval, bootstrap_means
from biaswh.stats.paired.mean_difference import paired_mean_difference


def _scipy(values, seed, n_resamples=2000, confidence=0.95):
    result = stats.bootstrap(
        (np.asarray(values, dtype=float),),
        np.mean,
        n_resamples=n_resamples,
        confidence_level=confidence,
        method="BCa",
        vectorized=True,
        rng=np.random.default_rng(seed),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


@settings(max_examples=40, deadline=None)
@given(
    values=st.lists(st.integers(-3, 3), min_size=2, max_size=60).filter(lambda v: len(set(v)) > 1),
    seed=st.integers(0, 2**32 - 1),
    confidence=st.sampled_from([0.9, 0.95, 0.99]),
)
def test_the_interval_is_scipys(values, seed, confidence):
    # skewed, tied, small samples: where bias correction and acceleration both matter
    ours = bca_mean_interval(
        np.asarray(values) / 4, rng=np.random.default_rng(seed), n_resamples=2000, confidence=confidence
    )
    theirs = _scipy(np.asarray(values) / 4, seed, confidence=confidence)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12, equal_nan=True)


def test_the_interval_is_scipys_on_a_large_skewed_sample_with_blocks_of_resamples(monkeypatch):
    rng = np.random.default_rng(7)
    values = np.where(rng.random(3000) < 0.7, 0.0, rng.exponential(size=3000))
    monkeypatch.setattr(bca_mean, "ROWS_PER_BLOCK", 97)  # blocks that do not divide the resamples
    ours = bca_mean_interval(values, rng=np.random.default_rng(11), n_resamples=2001)
    theirs = _scipy(values, 11, n_resamples=2001)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    assert ours[0] < values.mean() < ours[1]


def test_the_resampled_means_are_scipys_bootstrap_distribution():
    values = np.arange(10.0) ** 2
    result = stats.bootstrap(
        (values,), np.mean, n_resamples=500, method="percentile", vectorized=True, rng=np.random.default_rng(3)
    )
    ours = bootstrap_means(values, rng=np.random.default_rng(3), n_resamples=500)
    np.testing.assert_array_equal(ours, result.bootstrap_distribution)


def test_where_bca_is_undefined_the_percentile_interval_is_used_and_named(monkeypatch):
    from biaswh.stats.paired import mean_difference

    monkeypatch.setattr(mean_difference, "bca_mean_interval", lambda *a, **k: (float("nan"), 1.0))
    rng = np.random.default_rng(5)
    a, b = rng.random(50), rng.random(50)
    result = paired_mean_difference(a, b, seed=42)
    assert result.ci_method.startswith("percentile bootstrap (BCa degenerate), 2,000 resamples, seed ")
    seed = int(result.ci_method.rsplit("seed ", 1)[1])
    percentile = stats.bootstrap(
        (a - b,), np.mean, n_resamples=2000, method="percentile", vectorized=True, rng=np.random.default_rng(seed)
    ).confidence_interval
    assert (result.ci_low, result.ci_high) == (percentile.low, percentile.high)


def test_a_paired_difference_reports_scipys_bca_interval():
    rng = np.random.default_rng(5)
    a, b = rng.random(400), rng.random(400) * 0.9
    result = paired_mean_difference(a, b, seed=42)
    assert result.ci_method.startswith("BCa bootstrap, 2,000 resamples, seed ")
    seed = int(result.ci_method.rsplit("seed ", 1)[1])
    np.testing.assert_allclose((result.ci_low, result.ci_high), _scipy(a - b, seed), rtol=1e-12)


def test_single_precision_values_give_the_double_precision_interval():
    values = np.random.default_rng(3).exponential(size=50).astype(np.float32)
    ours = bca_mean_interval(values, rng=np.random.default_rng(1), n_resamples=2000)
    theirs = bca_mean_interval(values.astype(float), rng=np.random.default_rng(1), n_resamples=2000)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_a_degenerate_bootstrap_gives_nan_ends_as_scipy_does_and_no_warning():
    # One resample above the mean: every resampled mean lies above the estimate, so the bias
    # correction is infinite and BCa is undefined (warnings are errors in this suite).
    values = np.array([0.0, 0.0, 0.0, 0.0, 1.0])
    low, high = bca_mean_interval(values, rng=np.random.default_rng(4), n_resamples=1)
    assert np.isnan(low) and np.isnan(high)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert all(np.isnan(_scipy(values, 4, n_resamples=1)))
    assert any(issubclass(w.category, stats.DegenerateDataWarning) for w in caught)
