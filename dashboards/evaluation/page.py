"""Dashboard page: retrieval evaluation and drift monitoring (the latest analysed drift series)."""

from __future__ import annotations

import duckdb

from biaswh.dashboards.common.format import (
    estimate,
    fixed,
    floor_notes,
    interval,
    number,
    p_value,
    plural,
    shared_decimals,
    timestamp,
)
from biaswh.dashboards.common.html import chart, table, text
from biaswh.dashboards.common.provenance import provenance_section
from biaswh.dashboards.common.queries import query_dicts, query_rows
from biaswh.dashboards.common.site import register_page
from biaswh.dashboards.common.verdict_policy import policy_phrase
from biaswh.dashboards.evaluation.card import RUNS
from biaswh.dashboards.evaluation.data import baseline_run, charts, drift_checks, split_drift, system_metrics
from biaswh.dashboards.evaluation.page_series import series_links
from biaswh.dashboards.evaluation.system_comparisons import comparison_section

PERCENT_METRICS = ("recall", "hit_rate")


def _three(row) -> str:
    """A mean of a per-query score in [0, 1] with its interval, three decimals throughout."""
    return f"{fixed(row.value, 3)} {interval(row.ci_low, row.ci_high, places=3)}"


def _metrics_table(metrics) -> str:
    pivot: dict = {}
    for row in metrics.itertuples():
        # a metric the page calls recall or a rate reads as a percentage (the site's one policy)
        unit = "percent" if row.metric in PERCENT_METRICS else "number"
        pivot.setdefault((row.retriever, row.k), {})[row.metric] = (
            estimate(row.value, row.ci_low, row.ci_high, unit=unit) if unit == "percent" else _three(row)
        )
    names = ["recall", "precision", "f1", "hit_rate", "mrr", "ndcg", "map", "r_precision"]
    order = list(dict.fromkeys(metrics["retriever"]))
    body = [
        [r, k, *[pivot[(r, k)].get(m, "–") for m in names]]
        for (r, k) in sorted(pivot, key=lambda x: (x[1], order.index(x[0])))
    ]
    return (
        '<h2>Metrics at k, every system</h2><p class="note">Every system of the series as '
        "<code>run label:retriever</code>: the baseline run's retrievers and each later run's retriever the "
        "baseline does not have (a system written elsewhere, ours beside it). Mean over the evaluated queries "
        "with a 95% percentile bootstrap interval over queries. Definitions follow trec_eval (see "
        "dbt_project/models/marts/evaluation/_evaluation__models.yml); R-precision does not depend on k.</p>"
        + table(["system", "k", *names], body, data=metrics)
    )


def _alerts(con, series: str) -> str:
    found = query_dicts(
        con,
        """
        select * from analysis.evaluation_alerts where series_run_id = ?
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
            fixed(a["mean_change"], shared_decimals(a["mean_change"], a["change_ci_low"], a["change_ci_high"])),
            interval(a["change_ci_low"], a["change_ci_high"], like=a["mean_change"]),
            p_value(a["p_value"], floor=a.get("min_p")),
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
    lead = f'<p class="verdict">{_alert_counts(found)}</p>' if rows else ""
    floors = floor_notes([a for a in found if a.get("min_p") is not None])
    return (
        "<h2>Alerts</h2>" + lead + '<p class="note">Sorted by significance, then severity, then the size of '
        "the change. Thresholds from the seed evaluation_alert_thresholds (edit it to change them). "
        "is_significant: the paired sign-flip randomization test of the per-query change against the baseline "
        "(exact where feasible), p &lt; alpha, on the queries both runs evaluated; the interval is a BCa "
        "bootstrap. A change on fewer than 6 paired queries is shown but never flagged significant; a check "
        f"with no paired query is not testable and has no severity. {text(floors)}</p>"
        + (table(columns, rows, data=found, css_class="tall") if rows else "<p>No alerts.</p>")
    )


def _alert_counts(found: list[dict]) -> str:
    """E.g. "6 alerts: 1 significant (...), 1 within noise, 4 not tested (breaches of the baseline itself)"."""
    n_significant = sum(1 for a in found if a["is_significant"])
    by_status = {
        status: sum(1 for a in found if a.get("status") == status and not a["is_significant"])
        for status in ("tested", "too few queries", "not testable", "baseline")
    }
    families = {
        (a["family"], a["family_size"], a["adjustment"], a["alpha"])
        for a in found
        if a.get("family") and a.get("p_adjusted") is not None
    }
    judged = "; ".join(
        policy_phrase(adjustment, size, alpha, family=family)
        for family, size, adjustment, alpha in sorted(families, key=str)
    )
    parts = [
        f"<b>{n_significant} significant</b> (a paired change unlikely under no change"
        + (f"; {text(judged)})" if judged else ")")
    ]
    parts += [f"{by_status['tested']} within noise"] if by_status["tested"] else []
    parts += (
        [f"{by_status['too few queries']} on too few paired queries to test"] if by_status["too few queries"] else []
    )
    parts += (
        [f"{by_status['not testable']} not testable (no query paired with the baseline)"]
        if by_status["not testable"]
        else []
    )
    parts += (
        [f"{by_status['baseline']} not tested (breaches of the baseline run itself)"] if by_status["baseline"] else []
    )
    return f"{plural(len(found), 'alert')}: {', '.join(parts)}."


def _fusion_choice(con, series: str) -> str:
    columns, rows = query_rows(
        con,
        """
        select e.label, c.retriever_family, c.chosen_retriever, c.chosen_parameter, c.metric, c.k,
               c.tune_value, c.report_value, c.n_tune_queries, c.n_report_queries
        from marts.fct_evaluation_fusion_choice c join marts.dim_evaluation_runs e using (run_id)
        where e.series_run_id = ? order by e.position, c.retriever_family""",
        [series],
    )
    return "<h3>Chosen on the tune fold, reported on the report fold</h3>" + table(columns, rows)


def _provenance(con, series: str) -> str:
    code = con.execute("select code_version, started_at from marts.dim_runs where run_id = ?", [series]).fetchone()
    columns, rows = query_rows(
        con,
        """select position, label, is_baseline, run_id, n_queries, created_at
        from marts.dim_evaluation_runs where series_run_id = ? order by position""",
        [series],
    )
    return (
        f"<h2>Provenance</h2><p>Study run <code>{text(series)}</code>, "
        f"started {text(timestamp(code[1]) if code else '')}, "
        f"code version <code>{text(code[0] if code else '')}</code>. Each evaluation run's full retrieval "
        "configuration is in marts.dim_evaluation_runs.configuration and marts.dim_runs.parameters.</p>"
        + table(columns, rows)
    )


def _single_values(single) -> str:
    if not len(single):
        return ""
    rows = [[r.label, r.retriever, r.metric, r.value, r.baseline_value] for r in single.itertuples()]
    return '<p class="note">Checked metrics with a single value in this series (a line needs two runs):</p>' + table(
        ["run", "retriever", "metric", "value", "baseline_value"], rows, data=single
    )


@register_page(
    "evaluation.html",
    "Retrieval evaluation and drift",
    runs=RUNS,
    studies=("studies/demo_evaluation.toml", "studies/demo_external_runs.toml"),
)
def render(con: duckdb.DuckDBPyConnection, series: str | None = None) -> str:
    """One drift series' page (default: the latest analysed series)."""
    if series is None:
        found = RUNS.latest(con)
        if found is None:
            return '<p class="note">No retrieval evaluation has been analysed in this warehouse yet.</p>'
        series = found[0]
    baseline = baseline_run(con, series)
    figures = charts(con, series)
    _, single = split_drift(drift_checks(con, series))
    parts = [
        series_links(con, series),
        _alerts(con, series),
        comparison_section(con, series),
        "<h2>Drift over the series</h2>",
        chart(figures["drift"], name="drift")
        if "drift" in figures
        else '<p class="note">No retriever of this '
        "series ran in two or more runs: nothing drifts; its systems are compared above.</p>",
        _single_values(single),
        _metrics_table(system_metrics(con, series)),
        chart(figures["metrics_at_k"], name="metrics_at_k") if "metrics_at_k" in figures else "",
    ]
    if "fusion_sweep" in figures:
        parts += [
            "<h2>Fusion sweep (baseline run)</h2>",
            chart(figures["fusion_sweep"], name="fusion_sweep"),
            _fusion_choice(con, series),
        ]
    if "overlap" in figures:
        parts += ["<h2>Dense vs BM25 overlap</h2>", chart(figures["overlap"], name="overlap")]
    if "latency" in figures:
        parts += ["<h2>Latency</h2>", chart(figures["latency"], name="latency")]
    parts += [
        _provenance(con, series),
        f'<p class="note">Baseline evaluation run <code>{text(baseline)}</code>.</p>',
        provenance_section(con, series, heading="Study run"),
    ]
    return "".join(parts)
