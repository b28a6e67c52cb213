"""Bootstrap intervals of metric means and the paired change test, against a plain loop and scipy."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats

from biaswh.analysis.evaluation.intervals import (
    METRICS,
    metrics_with_intervals,
    paired_change,
    stored_test_columns,
)
from biaswh.stats.paired.mean_difference import is_significant
from biaswh.warehouse.settings.random_seeds import derive_seed


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


def test_every_metric_and_k_gets_the_mean_inside_its_interval():
    frame = _frame(60, seed=3)
    out = metrics_with_intervals(frame, seed=11)
    assert out.height == 2 * len(METRICS)
    for row in out.iter_rows(named=True):
        expected = frame.filter(pl.col("k") == row["k"])[row["metric"]].mean()
        assert abs(row["value"] - expected) < 1e-12
        assert row["ci_low"] <= row["value"] <= row["ci_high"] and row["n_queries"] == 60
    assert metrics_with_intervals(frame, seed=11).equals(out)


def test_paired_change_has_scipy_bca_interval_and_a_sign_flip_p_close_to_scipy_permutation_test():
    # Changes with variance: a real drop of 0.05 with noise, and a null change of pure noise.
    rng = np.random.default_rng(2)
    baseline = rng.random(300)
    for values, seed in ((baseline - 0.05 + rng.normal(0, 0.1, 300), 1), (baseline + rng.normal(0, 0.1, 300), 2)):
        change = paired_change(values, baseline, seed=seed)
        reference = stats.bootstrap(
            (values - baseline,),
            np.mean,
            n_resamples=2000,
            method="BCa",
            vectorized=True,
            rng=np.random.default_rng(derive_seed(seed, "bootstrap")),
        )
        permutation = stats.permutation_test(
            (values, baseline),
            lambda x, y, axis: np.mean(x - y, axis=axis),
            permutation_type="samples",
            n_resamples=20_000,
            vectorized=True,
            rng=np.random.default_rng(seed),
        )
        assert change.ci_low == pytest.approx(reference.confidence_interval.low, abs=1e-12)
        assert change.ci_high == pytest.approx(reference.confidence_interval.high, abs=1e-12)
        assert change.ci_method.startswith("BCa bootstrap, 2,000 resamples")
        assert change.variant.startswith("monte carlo B=10000")  # continuous changes: drawn, never 0
        tolerance = 4 * np.sqrt(max(permutation.pvalue, 1e-4) / 10_000) + 1e-4
        assert change.p_value == pytest.approx(permutation.pvalue, abs=tolerance)
        assert change.p_value >= change.min_p == 1 / 10_001
        assert change.effect_size == pytest.approx(np.mean(values - baseline))
    dropped = paired_change(baseline - 0.05 + rng.normal(0, 0.1, 300), baseline, seed=3)
    assert dropped.p_value == 1 / 10_001 and dropped.ci_high < 0  # b = 0: p = 1 / (B + 1), not 0
    unchanged = paired_change(baseline, baseline, seed=1)
    assert unchanged.p_value == 1.0 and (unchanged.ci_low, unchanged.ci_high) == (0.0, 0.0)
    assert unchanged.ci_method.startswith("percentile bootstrap (BCa degenerate")


def test_six_queries_all_dropping_by_half_read_p_0_031_with_the_stored_columns():
    change = paired_change(np.full(6, 0.5), np.ones(6), seed=4)
    columns = stored_test_columns(change, 6)
    assert change.p_value == columns["min_p"] == 0.03125
    assert columns["status"] == "tested" and columns["p_method"] == "sign-flip randomization (exact enumeration)"
    assert columns["p_t_test"] is None  # zero variance: t undefined
    assert is_significant(change, alpha=0.05)
    five = paired_change(np.full(5, 0.5), np.ones(5), seed=4)
    assert stored_test_columns(five, 5)["status"] == "too few queries" and not is_significant(five, alpha=0.1)
    assert stored_test_columns(None, 0)["status"] == "not testable" and not is_significant(None, alpha=0.05)
