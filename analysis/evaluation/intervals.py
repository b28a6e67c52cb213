"""Bootstrap intervals of the mean of per-query metrics, and paired tests of a run against its baseline."""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from biaswh.stats.mean_bootstrap import mean_intervals, resample_counts
from biaswh.stats.paired.mean_difference import paired_mean_difference, paired_status
from biaswh.stats.paired.result import TestResult

METRICS = ("recall", "precision", "f1", "hit_rate", "mrr", "ndcg", "map", "r_precision")


def metrics_with_intervals(
    query_metrics: pl.DataFrame, *, seed: int, n_resamples: int = 2000, confidence: float = 0.95
) -> pl.DataFrame:
    """Mean of every metric at every k per (run, query set, retriever), with bootstrap intervals.

    ``query_metrics`` has marts.fct_evaluation_query_metrics' columns. Queries are resampled
    with replacement (every metric and k of a query together); one set of resamples per
    number of queries, seeded by ``seed``.
    """
    rows = []
    counts_by_n: dict[int, np.ndarray] = {}
    for (run_id, query_set, retriever), group in query_metrics.group_by(["run_id", "query_set", "retriever"]):
        group = group.sort(["query_id", "variant", "k"])
        ks = sorted(group["k"].unique().to_list())
        n = group.height // len(ks)
        # (queries x (k, metric)): each query contributes one row per k, in k order.
        values = np.stack([group[m].to_numpy().astype(float).reshape(n, len(ks)) for m in METRICS], axis=2)
        values = values.reshape(n, len(ks) * len(METRICS))
        if n not in counts_by_n:
            counts_by_n[n] = resample_counts(n, seed=seed, n_resamples=n_resamples)
        lows, highs = mean_intervals(values, counts_by_n[n], confidence=confidence)
        means = values.mean(axis=0)
        for column in range(values.shape[1]):
            k, metric = ks[column // len(METRICS)], METRICS[column % len(METRICS)]
            rows.append(
                {
                    "run_id": run_id,
                    "query_set": query_set,
                    "retriever": retriever,
                    "k": k,
                    "metric": metric,
                    "value": float(means[column]),
                    "ci_low": float(lows[column]),
                    "ci_high": float(highs[column]),
                    "n_queries": n,
                    "confidence": confidence,
                    "interval": f"percentile bootstrap over queries, {n_resamples:,} resamples, seed {seed}",
                }
            )
    return pl.DataFrame(rows)


def paired_change(values: np.ndarray, baseline_values: np.ndarray, *, seed: int, n_resamples: int = 2000) -> TestResult:
    """The mean per-query change (run minus baseline) over the queries both ran: sign-flip p, BCa interval.

    See stats/paired/mean_difference.py; the bootstrap makes the interval only.
    """
    return paired_mean_difference(values, baseline_values, seed=seed, n_resamples=n_resamples)


TEST_SCHEMA = {
    "status": pl.String,
    "p_method": pl.String,
    "p_t_test": pl.Float64,
    "min_p": pl.Float64,
    "n_nonzero": pl.Int64,
    "ci_method": pl.String,
}


def stored_test_columns(result: TestResult | None, n_paired: int) -> dict:
    """The stored description of a paired test (``TEST_SCHEMA``'s columns); nulls where nothing was tested.

    ``status`` is ``tested``, ``too few queries`` (fewer than MIN_PAIRED_QUERIES: shown with its
    interval, never significant) or ``not testable`` (no paired query); the alerts mark a breach of
    the baseline run itself ``baseline`` (a level, not a change).
    """
    return {
        "status": "not testable" if result is None else paired_status(n_paired),
        "p_method": None if result is None else f"{result.test} ({result.variant})",
        "p_t_test": None if result is None or math.isnan(result.p_t_test) else result.p_t_test,
        "min_p": None if result is None else result.min_p,
        "n_nonzero": None if result is None else result.n_nonzero,
        "ci_method": None if result is None else result.ci_method,
    }
