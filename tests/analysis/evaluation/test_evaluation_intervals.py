"""Bootstrap intervals of metric means: seeded, around the mean, and matching a plain loop."""

from __future__ import annotations

import numpy as np
import polars as pl

from analysis.evaluation.intervals import METRICS, mean_intervals, metrics_with_intervals, paired_change, resample_counts


def _frame(n_queries: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(n_queries):
        for k in (1, 5):
            rows.append({"run_id": "r", "query_set": "s", "retriever": "bm25", "query_id": str(q),
                         "variant": "question", "k": k, **{m: float(rng.random()) for m in METRICS}})
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


def test_paired_change_detects_a_real_drop_and_not_a_null_one():
    rng = np.random.default_rng(2)
    baseline = rng.random(300)
    dropped = paired_change(baseline - 0.1, baseline, seed=1)
    assert dropped.p_value < 0.001 and dropped.ci_high < 0
    same = paired_change(baseline, baseline, seed=1)
    assert same.p_value == 1.0
