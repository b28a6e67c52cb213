"""Bootstrap intervals of metric means and the paired change test, against a plain loop and scipy."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats

from analysis.evaluation.intervals import (
    METRICS,
    mean_intervals,
    metrics_with_intervals,
    paired_change,
    resample_counts,
)


def _frame(n_queries: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(n_queries):
        for k in (1, 5):
            rows.append(
                {
                    "run_id": "r",
                    "query_set": "s",
                    "retriever": "bm25",
                    "query_id": str(q),
                    "variant": "question",
                    "k": k,
                    **{m: float(rng.random()) for m in METRICS},
                }
            )
    return pl.DataFrame(rows)


def test_intervals_match_an_explicit_resampling_loop():
    values = np.random.default_rng(1).random((40, 3))
    counts = resample_counts(40, seed=5, n_resamples=2000)
    low, high = mean_intervals(values, counts)
    draws = np.random.default_rng(5).integers(0, 40, size=(2000, 40))
    means = np.array([values[row].mean(axis=0) for row in draws])
    np.testing.assert_allclose(low, np.quantile(means, 0.025, axis=0))
    np.testing.assert_allclose(high, np.quantile(means, 0.975, axis=0))


def test_every_metric_and_k_gets_the_mean_inside_its_interval():
    frame = _frame(60, seed=3)
    out = metrics_with_intervals(frame, seed=11)
    assert out.height == 2 * len(METRICS)
    for row in out.iter_rows(named=True):
        expected = frame.filter(pl.col("k") == row["k"])[row["metric"]].mean()
        assert abs(row["value"] - expected) < 1e-12
        assert row["ci_low"] <= row["value"] <= row["ci_high"] and row["n_queries"] == 60
    assert metrics_with_intervals(frame, seed=11).equals(out)


def test_paired_change_equals_a_scipy_bootstrap_of_the_per_query_changes():
    # Changes with variance: a real drop of 0.05 with noise, and a null change of pure noise.
    rng = np.random.default_rng(2)
    baseline = rng.random(300)
    for values, seed in ((baseline - 0.05 + rng.normal(0, 0.1, 300), 1), (baseline + rng.normal(0, 0.1, 300), 2)):
        change = paired_change(values, baseline, seed=seed)
        reference = stats.bootstrap(
            (values - baseline,),
            np.mean,
            n_resamples=2000,
            method="percentile",
            vectorized=True,
            rng=np.random.default_rng(seed),
        )
        means = reference.bootstrap_distribution
        p_value = min(1.0, 2 * min(np.mean(means <= 0), np.mean(means >= 0)))
        assert change.ci_low == pytest.approx(reference.confidence_interval.low, abs=1e-12)
        assert change.ci_high == pytest.approx(reference.confidence_interval.high, abs=1e-12)
        assert change.p_value == pytest.approx(p_value, abs=1e-12)
        assert change.effect_size == pytest.approx(np.mean(values - baseline))
    dropped = paired_change(baseline - 0.05 + rng.normal(0, 0.1, 300), baseline, seed=3)
    assert dropped.p_value < 0.001 and dropped.ci_high < 0
    assert paired_change(baseline, baseline, seed=1).p_value == 1.0
