"""The demo drift series end to end: metrics against an independent computation, alerts, contracts
(its intervals and alert statistics against scipy: test_evaluation_demo_statistics.py)."""

from __future__ import annotations

import csv
import math
from collections import defaultdict

import numpy as np
import pytest

from biaswh.warehouse.settings.home import REPOSITORY_ROOT
from tests.conftest import DEMO_DATA

pytestmark = pytest.mark.dbt
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
