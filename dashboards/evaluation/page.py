"""Dashboard page: retrieval evaluation and drift monitoring (the latest analysed drift series)."""

from __future__ import annotations

import duckdb

from dashboards.common.html import chart, table, text
from dashboards.common.p_values import floor_notes, p_text
from dashboards.common.queries import number, query_dicts, query_rows, relation_exists
from dashboards.common.site import register_page
from dashboards.evaluation.charts import (
    drift_chart,
    fusion_sweep_chart,
    latency_chart,
    metrics_at_k_chart,
    overlap_chart,
)
from dashboards.evaluation.system_comparisons import comparison_section

# Our main retrievers and external systems (runs written elsewhere): not sweep points, not hybrid_union.
MAIN_RETRIEVERS = "(retriever not like '%@%' and retriever <> 'hybrid_union')"


def _metrics_table(con, baseline: str) -> str:
    columns, rows = query_rows(
        con,
        f"""
        select retriever, k, metric, value, '[' || round(ci_low, 3) || ', ' || round(ci_high, 3) || ']' as ci_95,
               n_queries
        from analysis.retrieval_metrics_at_k where run_id = ? and {MAIN_RETRIEVERS}
        order by metric, k, retriever""",
        [baseline],
    )
    pivot: dict = {}
    for retriever, k, metric, value, ci, _n in rows:
        pivot.setdefault((retriever, k), {})[metric] = f"{number(value)} {ci}"
    metrics = ["recall", "precision", "f1", "hit_rate", "mrr", "ndcg", "map", "r_precision"]
    body = [
        [r, k, *[pivot[(r, k)].get(m, "–") for m in metrics]] for (r, k) in sorted(pivot, key=lambda x: (x[1], x[0]))
    ]
    return (
        '<h2>Metrics at k (baseline run)</h2><p class="note">Mean over the evaluated queries with a 95% '
        "percentile bootstrap interval over queries. Definitions follow trec_eval (see "
        "dbt_project/models/marts/evaluation/_evaluation__models.yml); R-precision does not depend on k.</p>"
        + table(["retriever", "k", *metrics], body)
    )


def _alerts(con, series: str) -> str:
    found = query_dicts(
        con,
        """
        select * from analysis.retrieval_alerts where series_run_id = ?
        order by is_significant desc nulls last, case severity when 'high' then 0 when 'medium' then 1 else 2 end,
                 abs(mean_change) desc nulls last, position, retriever, metric""",
        [series],
    )
    rows = [
        [
            a["label"],
            a["retriever"],
            a["metric"],
            "yes" if a["is_significant"] else "no",
            a["severity"] or "–",
            number(a["mean_change"]),
            "–" if a["change_ci_low"] is None else f"[{number(a['change_ci_low'])}, {number(a['change_ci_high'])}]",
            p_text(a["p_value"]),
            f"{number(a['value'])} vs {number(a['baseline_value'])}",
            f"{a['direction']} {number(a['threshold'])}",
            a["n_paired_queries"],
            a.get("status") or "–",
        ]
        for a in found
    ]
    columns = [
        "label",
        "retriever",
        "metric",
        "is_significant",
        "severity",
        "mean_change",
        "change_ci_95",
        "p_value",
        "value_vs_baseline",
        "alert_rule",
        "n_paired_queries",
        "status",
    ]
    n_significant = sum(1 for a in found if a["is_significant"])
    untestable = sum(1 for a in found if a.get("status") == "not testable")
    lead = (
        f'<p class="verdict">{len(rows)} alert{"s" if len(rows) != 1 else ""}: <b>{n_significant} '
        f"significant</b> (a paired change unlikely under no change), {len(rows) - n_significant - untestable} "
        f"within noise{f', {untestable} not testable (no query paired with the baseline)' if untestable else ''}."
        f"</p>"
        if rows
        else ""
    )
    floors = floor_notes([a for a in found if a.get("min_p") is not None])
    return (
        "<h2>Alerts</h2>" + lead + '<p class="note">Sorted by significance, then severity, then the size of '
        "the change. Thresholds from the seed retrieval_alert_thresholds (edit it to change them). "
        "is_significant: the paired sign-flip randomization test of the per-query change against the baseline "
        "(exact where feasible), p &lt; alpha, on the queries both runs evaluated; the interval is a BCa "
        "bootstrap. A change on fewer than 6 paired queries is shown but never flagged significant; a check "
        f"with no paired query is not testable and has no severity. {text(floors)}</p>"
        + (table(columns, rows, css_class="tall") if rows else "<p>No alerts.</p>")
    )


def _fusion_choice(con, series: str) -> str:
    columns, rows = query_rows(
        con,
        """
        select e.label, c.retriever_family, c.chosen_retriever, c.chosen_parameter, c.metric, c.k,
               c.tune_value, c.report_value, c.n_tune_queries, c.n_report_queries
        from marts.fct_retrieval_fusion_choice c join marts.dim_evaluation_runs e using (run_id)
        where e.series_run_id = ? order by e.position, c.retriever_family""",
        [series],
    )
    return "<h3>Chosen on the tune fold, reported on the report fold</h3>" + table(
        columns, [[number(v) for v in row] for row in rows]
    )


def _provenance(con, series: str) -> str:
    code = con.execute("select code_version, started_at from marts.dim_runs where run_id = ?", [series]).fetchone()
    columns, rows = query_rows(
        con,
        """select position, label, is_baseline, run_id, n_queries, created_at
        from marts.dim_evaluation_runs where series_run_id = ? order by position""",
        [series],
    )
    return (
        f"<h2>Provenance</h2><p>Study run <code>{text(series)}</code>, started {text(code[1] if code else '')}, "
        f"code version <code>{text(code[0] if code else '')}</code>. Each evaluation run's full retrieval "
        "configuration is in marts.dim_evaluation_runs.configuration and marts.dim_runs.parameters.</p>"
        + table(columns, rows)
    )


@register_page("evaluation.html", "Retrieval evaluation and drift")
def render(con: duckdb.DuckDBPyConnection) -> str:
    """The retrieval evaluation and drift page."""
    if not (
        relation_exists(con, "analysis", "retrieval_alerts")
        and relation_exists(con, "marts", "fct_retrieval_alert_checks")
        and relation_exists(con, "marts", "dim_evaluation_runs")
    ):
        return '<p class="note">No retrieval evaluation has been analysed in this warehouse yet.</p>'
    latest = con.execute("""select e.series_run_id from marts.dim_evaluation_runs e
        join analysis.retrieval_metrics_at_k m using (run_id) order by e.created_at desc limit 1""").fetchone()
    if latest is None:
        return '<p class="note">No retrieval evaluation has been analysed in this warehouse yet.</p>'
    series = latest[0]
    baseline = con.execute(
        "select run_id from marts.dim_evaluation_runs where series_run_id = ? and is_baseline", [series]
    ).fetchone()[0]
    metrics = con.execute(
        f"""select retriever, k, metric, value, ci_low, ci_high from analysis.retrieval_metrics_at_k
        where run_id = ? and {MAIN_RETRIEVERS}""",
        [baseline],
    ).df()
    sweep = con.execute(
        """select s.* from marts.agg_retrieval_fusion_sweep s where s.run_id = ?
        and s.retriever like '%@%'""",
        [baseline],
    ).df()
    overlap = con.execute(
        """select e.label, e.position, o.found_by, o.share, o.n_documents
        from marts.agg_retrieval_overlap o join marts.dim_evaluation_runs e using (run_id)
        where e.series_run_id = ?""",
        [series],
    ).df()
    # Relative checks are drawn as a percentage of the baseline (BM25 and dense scores differ in scale).
    drift = con.execute(
        """select c.label, c.position, c.retriever,
        case when c.direction = 'drop_pct' then c.metric || ' (% of baseline)' else c.metric end as metric,
        case when c.direction = 'drop_pct' then 100 * c.value / nullif(c.baseline_value, 0) else c.value end as value,
        c.baseline_value, case when c.direction = 'drop_pct' then 'below' else c.direction end as direction,
        case when c.direction = 'drop_pct' then 100 - c.threshold else c.threshold end as threshold,
        c.severity, c.is_breached, coalesce(a.is_significant, false) as is_significant
        from marts.fct_retrieval_alert_checks c left join analysis.retrieval_alerts a
            on a.run_id = c.run_id and a.query_set = c.query_set and a.retriever = c.retriever and a.metric = c.metric
        where c.series_run_id = ?""",
        [series],
    ).df()
    latency = con.execute(
        """unpivot (select e.label, e.position, l.retriever, l.latency_p50_ms as p50,
        l.latency_p95_ms as p95 from marts.agg_retrieval_latency l join marts.dim_evaluation_runs e using (run_id)
        where e.series_run_id = ? and l.retriever not like '%@%' and l.retriever <> 'hybrid_union')
        on p50, p95 into name percentile value latency_ms""",
        [series],
    ).df()
    parts = [
        f'<p class="note">Latest analysed drift series: study run <code>{text(series)}</code>; baseline '
        f"<code>{text(baseline)}</code>.</p>",
        _alerts(con, series),
        comparison_section(con, series),
        "<h2>Drift over the series</h2>",
        chart(drift_chart(drift)),
        _metrics_table(con, baseline),
        chart(metrics_at_k_chart(metrics)),
    ]
    if len(sweep):
        parts += ["<h2>Fusion sweep (baseline run)</h2>", chart(fusion_sweep_chart(sweep)), _fusion_choice(con, series)]
    parts += [
        "<h2>Dense vs BM25 overlap</h2>",
        chart(overlap_chart(overlap)) if len(overlap) else "<p>–</p>",
        "<h2>Latency</h2>",
        chart(latency_chart(latency)),
        _provenance(con, series),
    ]
    return "".join(parts)
