"""The demo drift series end to end: metrics against an independent computation, alerts, contracts."""

from __future__ import annotations

import csv
import math
import tomllib
from collections import defaultdict

import numpy as np
import polars as pl
import pytest
from scipy import stats

from biaswh.analysis.evaluation.intervals import METRICS
from biaswh.warehouse.settings.home import REPOSITORY_ROOT
from biaswh.warehouse.settings.random_seeds import derive_seed
from tests.conftest import DEMO_DATA

pytestmark = pytest.mark.dbt
STUDY = REPOSITORY_ROOT / "studies" / "demo_evaluation.toml"
SETTINGS = tomllib.loads(STUDY.read_text(encoding="utf-8"))
QRELS = DEMO_DATA / "evaluation" / "demo_qrels.csv"
THRESHOLDS = REPOSITORY_ROOT / "dbt_project" / "seeds" / "evaluation" / "evaluation_alert_thresholds.csv"


def reference_metrics(ranking: list[int], judged: dict[int, int], k: int) -> dict[str, float]:
    """trec_eval's definitions written out plainly (an independent check of the SQL)."""
    relevant = {d for d, g in judged.items() if g > 0}
    top = ranking[:k]
    hits = [d in relevant for d in top]
    found = sum(hits)
    precision, recall = found / k, found / len(relevant)
    first = next((i + 1 for i, h in enumerate(hits) if h), None)
    dcg = sum(judged.get(d, 0) / math.log2(i + 2) for i, d in enumerate(top))
    ideal = sorted((g for g in judged.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    precisions_at_hits = [sum(hits[: i + 1]) / (i + 1) for i, h in enumerate(hits) if h]
    r = len(relevant)
    return {
        "recall": recall,
        "precision": precision,
        "f1": 0.0 if found == 0 else 2 * precision * recall / (precision + recall),
        "hit_rate": float(found > 0),
        "mrr": 0.0 if first is None else 1 / first,
        "ndcg": dcg / idcg,
        "map": sum(precisions_at_hits) / r,
        "r_precision": sum(d in relevant for d in ranking[:r]) / r,
    }


def test_metrics_match_an_independent_computation(demo_evaluation):
    _, con = demo_evaluation
    judged: dict[str, dict[int, int]] = defaultdict(dict)
    with QRELS.open() as handle:
        for row in csv.DictReader(handle):
            judged[row["query_id"]][int(row["doc_id"])] = int(row["relevance"])
    rankings: dict[tuple, list[int]] = defaultdict(list)
    for run_id, retriever, query_id, doc_id in con.execute(
        "select r.run_id, r.retriever, r.query_id, r.doc_id from raw.retrieval_results r"
        " join raw.evaluation_runs e using (run_id) where r.retriever <> 'hybrid_union'"
        " order by r.run_id, r.retriever, r.query_id, r.rank"
    ).fetchall():
        rankings[(run_id, retriever, query_id)].append(doc_id)
    asked = con.execute(
        "select distinct q.run_id, q.query_id, r.retriever from raw.retrieval_queries q"
        " join raw.evaluation_runs e using (run_id) join raw.retrieval_runs r using (run_id)"
        " where r.retriever <> 'hybrid_union'"
    ).fetchall()
    sums: dict[tuple, float] = defaultdict(float)
    counts: dict[tuple, int] = defaultdict(int)
    for run_id, query_id, retriever in asked:
        if not any(g > 0 for g in judged.get(query_id, {}).values()):
            continue
        for k in (1, 3, 5, 10, 20):
            for metric, value in reference_metrics(
                rankings.get((run_id, retriever, query_id), []), judged[query_id], k
            ).items():
                sums[(run_id, retriever, k, metric)] += value
                counts[(run_id, retriever, k, metric)] += 1
    ours = {
        (r, ret, k, m): (v, n)
        for r, ret, k, m, v, n in con.execute(
            "select run_id, retriever, k, metric, value, n_queries from analysis.evaluation_metrics_at_k"
        ).fetchall()
    }
    # 4 runs x 20 rankings (4 retrievers, 11 min-max weights, 5 RRF constants) x 5 k x 8 metrics
    assert set(ours) == set(sums) and len(ours) == 4 * 20 * 5 * 8
    for key, total in sums.items():
        value, n = ours[key]
        assert n == counts[key] == 64
        assert value == pytest.approx(total / n, abs=1e-9), key


def test_contract_relations_have_the_agreed_columns(demo_evaluation):
    _, con = demo_evaluation

    def columns(name):
        return [
            r[0]
            for r in con.execute(
                "select column_name from information_schema.columns where table_name = ? order by ordinal_position",
                [name],
            ).fetchall()
        ]

    for name, wanted in (
        ("evaluation_metrics_at_k", ["run_id", "retriever", "k", "metric", "value", "ci_low", "ci_high", "n_queries"]),
        (
            "evaluation_alerts",
            [
                "run_id",
                "baseline_run_id",
                "retriever",
                "metric",
                "value",
                "baseline_value",
                "threshold",
                "severity",
                "is_significant",
            ],
        ),
    ):
        assert set(wanted) <= set(columns(name)), name
    intervals = con.execute(
        "select count(*), count(*) filter (where ci_low - 1e-9 <= value and value <= ci_high + 1e-9)"
        " from analysis.evaluation_metrics_at_k"
    ).fetchone()
    assert intervals[0] > 0 and intervals[0] == intervals[1]


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


def _expected_alerts(con) -> set[tuple]:
    """Breaches recomputed from the thresholds CSV, the (independently checked) means and raw rows."""
    runs = {
        r: (b, label)
        for r, b, label in con.execute(
            "select e.run_id, b.run_id, e.label from raw.evaluation_runs e join raw.evaluation_runs b"
            " on b.series_run_id = e.series_run_id and b.is_baseline"
        ).fetchall()
    }
    values = {
        (r, ret, f"{m}@{k}"): v
        for r, ret, k, m, v in con.execute(
            "select run_id, retriever, k, metric, value from analysis.evaluation_metrics_at_k"
        ).fetchall()
    }
    for r, ret, scores in con.execute(
        "select run_id, retriever, list(score) from raw.retrieval_results"
        " where rank = 1 and retriever in ('bm25', 'dense') group by all"
    ).fetchall():
        values[(r, ret, "top_score")] = sum(scores) / len(scores)
    for r, ret, latencies in con.execute(
        "select run_id, retriever, list(latency_ms) from raw.retrieval_query_stats group by all"
    ).fetchall():
        values[(r, ret, "latency_p95_ms")] = float(np.quantile(latencies, 0.95))
    expected = set()
    with THRESHOLDS.open() as handle:
        thresholds = list(csv.DictReader(handle))
    for (run_id, retriever, metric), value in values.items():
        if run_id not in runs or retriever not in ("bm25", "dense", "hybrid_minmax", "hybrid_rrf"):
            continue
        baseline = values.get((runs[run_id][0], retriever, metric))
        for t in thresholds:
            name = t["metric"] + (f"@{t['k']}" if t["k"] else "")
            if name != metric or t["retriever"] not in ("*", retriever):
                continue
            limit = float(t["threshold"])
            breached = {
                "below": value < limit,
                "above": value > limit,
                "drop_pct": baseline and (baseline - value) / abs(baseline) * 100 > limit,
            }[t["direction"]]
            if breached:
                expected.add((run_id, retriever, metric, t["severity"]))
    return expected


def test_alerts_are_exactly_the_breached_thresholds(demo_evaluation):
    _, con = demo_evaluation
    ours = set(con.execute("select run_id, retriever, metric, severity from analysis.evaluation_alerts").fetchall())
    assert ours == _expected_alerts(con)
    # The demo series drifts for real: the incomplete index and the ANN index raise significant alerts.
    significant = dict(
        con.execute(
            "select label, count(*) filter (where is_significant) from analysis.evaluation_alerts group by label"
        ).fetchall()
    )
    assert significant.get("baseline", 0) == 0
    assert significant.get("index_missing_10pct", 0) >= 1
