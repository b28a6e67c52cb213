"""The demo drift series' statistics: each metric's interval is scipy's bootstrap over the per-query metrics,
and each alert's significance is scipy's sign-flip test with its BCa interval."""

from __future__ import annotations

import tomllib

import numpy as np
import polars as pl
import pytest
from scipy import stats

from biaswh.analysis.evaluation.intervals import METRICS
from biaswh.warehouse.settings.home import REPOSITORY_ROOT
from biaswh.warehouse.settings.random_seeds import derive_seed

pytestmark = pytest.mark.dbt
STUDY = REPOSITORY_ROOT / "studies" / "demo_evaluation.toml"
SETTINGS = tomllib.loads(STUDY.read_text(encoding="utf-8"))


def _bootstrap(values: np.ndarray, seed: int) -> stats.BootstrapResult:
    """scipy's percentile bootstrap of the column means, resampling queries (rows) with replacement."""
    return stats.bootstrap(
        (values,),
        np.mean,
        n_resamples=SETTINGS["evaluation"]["bootstrap_resamples"],
        method="percentile",
        axis=0,
        vectorized=True,
        rng=np.random.default_rng(seed),
    )


def test_metric_intervals_equal_a_scipy_bootstrap_over_the_per_query_metrics(demo_evaluation):
    _, con = demo_evaluation
    seed = derive_seed(SETTINGS["study"]["seed"], "evaluation", "bootstrap")
    ours = {
        (r, ret, k, m): (low, high)
        for r, ret, k, m, low, high in con.execute(
            "select run_id, retriever, k, metric, ci_low, ci_high from analysis.evaluation_metrics_at_k"
        ).fetchall()
    }
    per_query = con.execute("select * from marts.fct_evaluation_query_metrics").pl()
    checked = 0
    for (run_id, retriever), group in per_query.group_by(["run_id", "retriever"]):
        for k in group["k"].unique().to_list():
            # Queries in (query_id, variant) order, the order the resamples index.
            values = group.filter(pl.col("k") == k).sort(["query_id", "variant"]).select(METRICS).to_numpy()
            result = _bootstrap(values, seed)
            for column, metric in enumerate(METRICS):
                low, high = ours[(run_id, retriever, k, metric)]
                assert low == pytest.approx(result.confidence_interval.low[column], abs=1e-9)
                assert high == pytest.approx(result.confidence_interval.high[column], abs=1e-9)
                checked += 1
    assert checked == len(ours) == 4 * 20 * 5 * 8


def _per_query_values(con, metric: str, run_id: str, query_set: str, retriever: str) -> dict[tuple, float]:
    if metric == "top_score":
        sql, extra = "select query_id, variant, top_score from marts.fct_evaluation_top_scores where true", []
    elif metric == "latency_p95_ms":
        sql, extra = (
            ("select query_id, variant, latency_ms from raw.retrieval_query_stats where latency_ms is not null"),
            [],
        )
    else:
        name, k = metric.split("@")
        sql, extra = f"select query_id, variant, {name} from marts.fct_evaluation_query_metrics where k = ?", [int(k)]
    rows = con.execute(
        sql + " and run_id = ? and query_set = ? and retriever = ?", [*extra, run_id, query_set, retriever]
    ).fetchall()
    return {(q, v): float(x) for q, v, x in rows}


def _sign_flip_reference(changes: np.ndarray) -> tuple[float, bool]:
    """scipy's sign-flip permutation test of the mean change: exact up to 2^16 assignments, else 20,000 draws.

    Only the nonzero changes go to scipy (a zero flips to itself; the share of extreme sums is
    the same), so its full enumeration stays at 2^16, not 2^n; one zero is added to a lone change.
    """
    nonzero = changes[np.round(changes, 9) != 0]
    exact = len(nonzero) <= 16
    result = stats.permutation_test(
        (nonzero if len(nonzero) > 1 else np.append(nonzero, 0.0),),
        lambda x, axis: np.mean(x, axis=axis),
        permutation_type="samples",
        n_resamples=np.inf if exact else 20_000,
        vectorized=True,
        rng=np.random.default_rng(0),
    )
    return float(result.pvalue), exact


def test_alert_significance_equals_scipy_sign_flip_test_and_bca_interval(demo_evaluation):
    _, con = demo_evaluation
    alerts = con.execute(
        "select run_id, baseline_run_id, query_set, retriever, metric, change_ci_low, change_ci_high,"
        " p_value, min_p, is_significant, alpha, status, ci_method, p_adjusted, label, position"
        " from analysis.evaluation_alerts"
        " where run_id <> baseline_run_id"
    ).fetchall()
    assert alerts
    for (
        run_id,
        baseline_run_id,
        query_set,
        retriever,
        metric,
        low,
        high,
        p_value,
        min_p,
        significant,
        alpha,
        status,
        ci_method,
        p_adjusted,
        label,
        position,
    ) in alerts:  # noqa: E501
        run = _per_query_values(con, metric, run_id, query_set, retriever)
        base = _per_query_values(con, metric, baseline_run_id, query_set, retriever)
        common = sorted(set(run) & set(base))
        changes = np.array([run[q] - base[q] for q in common])
        key = (run_id, retriever, metric)
        assert 0 < min_p <= p_value <= 1, key  # never 0, never below what n allows
        assert status == ("tested" if len(common) >= 6 else "too few queries"), key
        if not np.any(changes):
            assert p_value == 1.0 and not significant
            continue
        # the study seed and the check's identity in its series, never a run id (same config, same alerts)
        identity = (label, position, query_set, retriever, metric)
        seed = derive_seed(SETTINGS["study"]["seed"], "evaluation", "alert", *identity)
        expected_p, exact = _sign_flip_reference(changes)
        # Monte Carlo on both sides: four standard errors of each (B = 10,000 ours, 20,000 scipy's).
        tolerance = 1e-9 if exact else 4 * np.sqrt(expected_p * (1 - expected_p)) * (0.01 + 0.0071) + 2e-4
        assert p_value == pytest.approx(expected_p, abs=tolerance), key
        if np.ptp(changes) > 0:
            interval = stats.bootstrap(
                (changes,),
                np.mean,
                n_resamples=SETTINGS["evaluation"]["bootstrap_resamples"],
                method="BCa",
                vectorized=True,
                rng=np.random.default_rng(derive_seed(seed, "bootstrap")),
            ).confidence_interval
            assert ci_method.startswith("BCa bootstrap"), key
            assert (low, high) == (pytest.approx(interval.low, abs=1e-9), pytest.approx(interval.high, abs=1e-9)), key
        # The verdict policy: its own test says so (n >= 6, p < alpha) and the p adjusted within the
        # series' family (Holm by default) is below alpha too.
        own = p_value < alpha and len(common) >= 6
        assert p_adjusted is None or p_adjusted >= p_value - 1e-12, key
        assert significant == (own and p_adjusted is not None and p_adjusted < alpha), key
    assert any(significant for *_, significant, _, _, _, _, _, _ in alerts)
