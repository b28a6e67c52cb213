"""The breached threshold checks of a drift series, with a paired test of each per-query change.

Each test's Monte Carlo seed derives from the study seed and what is tested (the evaluation
run's label and position in the series, query set, retriever, metric), never from a run id:
the same config gives the same alerts in every run. Only the latency checks
(``depends_on_machine``) may differ, since they measure the machine that ran them.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from biaswh.analysis.evaluation.intervals import TEST_SCHEMA, paired_change, stored_test_columns
from biaswh.stats.paired.mean_difference import is_significant
from biaswh.warehouse.settings.random_seeds import derive_seed


def _per_query(con, metric_name: str, k, run_id: str, query_set: str, retriever: str) -> dict[tuple, float]:
    """Per-query values behind one checked metric of one run (keys: query_id, variant)."""
    if metric_name == "top_score":
        sql = (
            "select query_id, variant, top_score from marts.fct_evaluation_top_scores"
            " where run_id = ? and query_set = ? and retriever = ?"
        )
        params = [run_id, query_set, retriever]
    elif metric_name == "latency_p95_ms":
        sql = (
            "select query_id, variant, latency_ms from marts.fct_evaluation_query_latency"
            " where run_id = ? and query_set = ? and retriever = ?"
        )
        params = [run_id, query_set, retriever]
    else:
        sql = (
            f"select query_id, variant, {metric_name} from marts.fct_evaluation_query_metrics"
            " where run_id = ? and query_set = ? and retriever = ? and k = ?"
        )
        params = [run_id, query_set, retriever, k]
    return {(q, v): float(x) for q, v, x in con.execute(sql, params).fetchall()}


def _depends_on_machine(check: dict) -> bool:
    """Whether a check measures the machine (latency): the mart's column, or for a series whose
    marts were built before the column existed (re-analysed by `biaswh analyze`), the mart's rule."""
    stored = check.get("depends_on_machine")
    return str(check["metric"]).startswith("latency") if stored is None else bool(stored)


def alert_seed(study_seed: int, check: dict) -> int:
    """The seed of one check's test: the study seed and the check's identity in its series."""
    identity = (check["label"], check["position"], check["query_set"], check["retriever"], check["metric"])
    return derive_seed(study_seed, "evaluation", "alert", *identity)


# The columns of analysis.evaluation_alerts, in order.
ALERT_SCHEMA = {
    "run_id": pl.String,
    "series_run_id": pl.String,
    "label": pl.String,
    "position": pl.Int64,
    "baseline_run_id": pl.String,
    "query_set": pl.String,
    "retriever": pl.String,
    "metric": pl.String,
    "value": pl.Float64,
    "baseline_value": pl.Float64,
    "threshold": pl.Float64,
    "direction": pl.String,
    "severity": pl.String,
    "description": pl.String,
    "depends_on_machine": pl.Boolean,
    "is_significant": pl.Boolean,
    "test": pl.String,
    "test_variant": pl.String,
    "n_paired_queries": pl.Int64,
    "mean_change": pl.Float64,
    "change_ci_low": pl.Float64,
    "change_ci_high": pl.Float64,
    "p_value": pl.Float64,
    "alpha": pl.Float64,
    **TEST_SCHEMA,
}


def _alert_row(check: dict, series_run_id: str, result, n_paired: int, *, alpha: float) -> dict:
    """One breached check's row: the check, then its paired test (``result``, None when not tested)."""
    return {
        "run_id": check["run_id"],
        "series_run_id": series_run_id,
        "label": check["label"],
        "position": check["position"],
        "baseline_run_id": check["baseline_run_id"],
        "query_set": check["query_set"],
        "retriever": check["retriever"],
        "metric": check["metric"],
        "value": check["value"],
        "baseline_value": check["baseline_value"],
        "threshold": check["threshold"],
        "direction": check["direction"],
        # Without a paired query there is no change to judge, so no alert to rank.
        "severity": check["severity"] if n_paired else None,
        "description": check["description"],
        "depends_on_machine": _depends_on_machine(check),
        "is_significant": is_significant(result, alpha=alpha),
        "test": None if result is None else result.test,
        "test_variant": None if result is None else result.variant,
        "n_paired_queries": n_paired,
        "mean_change": None if result is None else result.effect_size,
        "change_ci_low": None if result is None else result.ci_low,
        "change_ci_high": None if result is None else result.ci_high,
        "p_value": None if result is None else result.p_value,
        "alpha": alpha,
        **stored_test_columns(result, n_paired),
    }


def series_alerts(con, series_run_id: str, *, seed: int, alpha: float = 0.05, n_resamples: int = 2000) -> pl.DataFrame:
    """One row per breached check of the series ``series_run_id``, with ``is_significant``.

    The change is tested on the queries both the run and its baseline evaluated: the paired
    sign-flip randomization test of the mean per-query difference, with a BCa bootstrap
    interval (stats/paired/mean_difference.py). For p95 latency the per-query latencies are
    compared (a shift of the distribution). ``status`` says what n allowed: a check with no
    paired query (a system the baseline did not run) is ``not testable`` and carries no
    severity; with fewer than six paired queries it is shown but never significant.
    """
    checks = con.execute(
        "select * from marts.fct_evaluation_alert_checks where series_run_id = ? and is_breached"
        " order by position, retriever, metric",
        [series_run_id],
    ).pl()
    rows = []
    for check in checks.iter_rows(named=True):
        run = _per_query(con, check["metric_name"], check["k"], check["run_id"], check["query_set"], check["retriever"])
        base = _per_query(
            con, check["metric_name"], check["k"], check["baseline_run_id"], check["query_set"], check["retriever"]
        )
        common = sorted(set(run) & set(base))
        result = None
        if common and check["run_id"] != check["baseline_run_id"]:
            result = paired_change(
                np.array([run[q] for q in common]),
                np.array([base[q] for q in common]),
                seed=alert_seed(seed, check),
                n_resamples=n_resamples,
            )
        rows.append(_alert_row(check, series_run_id, result, len(common), alpha=alpha))
        if check["run_id"] == check["baseline_run_id"]:
            rows[-1]["status"] = "baseline"  # a level breach of the baseline itself: no change to test
    return pl.DataFrame(rows, schema=ALERT_SCHEMA)
