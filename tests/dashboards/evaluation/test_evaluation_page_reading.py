"""The evaluation page of the demo site read against the warehouse: the series asked for, its alerts
counted and sorted with the policy that judged them (α = 0.01 and Benjamini-Hochberg planted on a
copy), the metrics of every system, the fusion choice, the provenance, and its notes when a series
has no alert, no drift or no analysis at all."""

from __future__ import annotations

import re

import duckdb
import pytest

from biaswh.dashboards.common.downloads import capturing_tables
from biaswh.dashboards.common.format import estimate, fixed, floor_notes, interval, number, p_value, shared_decimals
from biaswh.dashboards.common.format import timestamp as shown_time
from biaswh.dashboards.common.queries import query_dicts
from biaswh.dashboards.common.verdict_policy import policy_phrase
from biaswh.dashboards.evaluation import page
from biaswh.dashboards.evaluation.data import system_metrics
from biaswh.dashboards.evaluation.page_series import series_links
from tests.dashboards import page_reading
from tests.dashboards.page_reading import between, rendered, run_of, writable_copy

pytestmark = pytest.mark.dbt
site_fixture = page_reading.read_only_site  # the "warehouse" its tests take
SEVERITY = {"high": 0, "medium": 1}


def _alerts(con, series) -> list[dict]:
    found = query_dicts(con, "select * from analysis.evaluation_alerts where series_run_id = ?", [series])

    def key(a):
        change = a["mean_change"]
        return (
            {True: 0, False: 1}.get(a["is_significant"], 2),
            SEVERITY.get(a["severity"], 2),
            -abs(change) if change is not None else 0,
            change is None,
            a["position"],
            a["retriever"],
            a["metric"],
        )

    return sorted(found, key=key)


def _table(tables, first_columns):
    (found,) = [t for t in tables if t.columns[: len(first_columns)] == list(first_columns)]
    return found


def test_the_alerts_lead_counted_sorted_and_judged_by_the_series_policy(warehouse):
    con = warehouse
    series = run_of(con, "demo_evaluation")
    html, tables = rendered(page.render, con, series)
    alerts = _alerts(con, series)
    significant = sum(bool(a["is_significant"]) for a in alerts)
    noise = sum(a["status"] == "tested" and not a["is_significant"] for a in alerts)
    baseline = sum(a["status"] == "baseline" for a in alerts)
    assert (significant, noise, baseline) == (1, 21, 4) and len(alerts) == 26
    ((family, size, adjustment, alpha),) = {
        (a["family"], a["family_size"], a["adjustment"], a["alpha"]) for a in alerts if a["p_adjusted"] is not None
    }
    judged = policy_phrase(adjustment, size, alpha, family=family).replace("'", "&#x27;")
    assert html.startswith(
        f'{series_links(con, series)}<h2>Alerts</h2><p class="verdict">{len(alerts)} alerts: <b>{significant}'
        f" significant</b> (a paired change unlikely under no change; {judged}), {noise} within noise,"
        f' {baseline} not tested (breaches of the baseline run itself).</p><p class="note">Sorted by significance,'
    )
    assert (
        '<p class="note">Sorted by significance, then severity, then the size of the change. Thresholds from the'
        " seed evaluation_alert_thresholds (edit it to change them). is_significant: the paired sign-flip"
        " randomization test of the per-query change against the baseline (exact where feasible), p &lt; alpha, on"
        " the queries both runs evaluated; the interval is a BCa bootstrap. A change on fewer than 6 paired queries"
        " is shown but never flagged significant; a check with no paired query is not testable and has no severity."
        f" {floor_notes(alerts)}</p>" in html
    )
    table = _table(tables, ["label", "retriever", "metric", "is_significant"])
    assert table.columns[4:] == ["severity", "mean_change", "change_ci_95", "p_value", "value_vs_baseline"] + [
        "alert_rule",
        "n_paired_queries",
        "status",
    ]
    assert [(row[0], row[1], row[2]) for row in table.display] == [
        (a["label"], a["retriever"], a["metric"]) for a in alerts
    ]
    for shown, a in zip(table.display, alerts):
        places = shared_decimals(a["mean_change"], a["change_ci_low"], a["change_ci_high"])
        assert shown[3:] == [
            "yes" if a["is_significant"] else "no",
            a["severity"] or "–",
            fixed(a["mean_change"], places),
            interval(a["change_ci_low"], a["change_ci_high"], like=a["mean_change"]),
            p_value(a["p_value"], floor=a["min_p"]),
            f"{number(a['value'])} vs {number(a['baseline_value'])}",
            f"{a['direction']} {number(a['threshold'])}",
            f"{a['n_paired_queries']:,}",
            a["status"],
        ]
    assert list(table.data["p_value"].fillna(-1)) == [-1 if a["p_value"] is None else a["p_value"] for a in alerts]
    assert '<div class="table-box tall"><table class="tall">' in html
    headings = re.findall(r"<h[23]>(.*?)</h[23]>", html)
    assert headings == [
        "Alerts",
        "Systems compared (nDCG@10)",
        "Drift over the series",
        "Metrics at k, every system",
        "Fusion sweep (baseline run)",
        "Chosen on the tune fold, reported on the report fold",
        "Dense vs BM25 overlap",
        "Latency",
        "Provenance",
        "Study run",
    ]
    for name in ("drift", "metrics_at_k", "fusion_sweep", "overlap", "latency"):
        assert f'"downloadFileName": "{name}"' in html
    assert "<h2>Drift over the series</h2><div id=" in html


def test_metrics_fusion_choice_and_provenance_of_the_series(warehouse):
    con = warehouse
    series = run_of(con, "demo_evaluation")
    html, tables = rendered(page.render, con, series)
    metrics = system_metrics(con, series)
    names = ["recall", "precision", "f1", "hit_rate", "mrr", "ndcg", "map", "r_precision"]
    table = _table(tables, ["system", "k", *names])
    order = list(dict.fromkeys(metrics["retriever"]))
    cells = {}
    for r in metrics.itertuples():
        percent = r.metric in ("recall", "hit_rate")
        cells[(r.retriever, r.k, r.metric)] = (
            estimate(r.value, r.ci_low, r.ci_high, unit="percent")
            if percent
            else f"{fixed(r.value, 3)} {interval(r.ci_low, r.ci_high, places=3)}"
        )
    keys = sorted({(r.retriever, r.k) for r in metrics.itertuples()}, key=lambda x: (x[1], order.index(x[0])))
    assert table.display == [[s, str(k), *(cells.get((s, k, m), "–") for m in names)] for s, k in keys]
    assert len(table.data) == len(metrics)
    fusion = con.execute(
        "select e.label, c.retriever_family, c.chosen_retriever from marts.fct_evaluation_fusion_choice c"
        " join marts.dim_evaluation_runs e using (run_id) where e.series_run_id = ? order by e.position,"
        " c.retriever_family",
        [series],
    ).fetchall()
    assert fusion and [tuple(r[:3]) for r in _table(tables, ["label", "retriever_family"]).display] == fusion
    runs = con.execute(
        "select position, label, run_id, is_baseline from marts.dim_evaluation_runs where series_run_id = ?"
        " order by position",
        [series],
    ).fetchall()
    provenance = _table(tables, ["position", "label", "is_baseline"])
    assert [(int(r[0]), r[1], r[3]) for r in provenance.display] == [(p, label, run) for p, label, run, _ in runs]
    code, started = con.execute(
        "select code_version, started_at from marts.dim_runs where run_id = ?", [series]
    ).fetchone()
    baseline = next(run for _, _, run, is_baseline in runs if is_baseline)
    assert (
        f"<h2>Provenance</h2><p>Study run <code>{series}</code>, started {shown_time(started)}, code version"
        f" <code>{code}</code>. Each evaluation run's full retrieval configuration is in" in html
    )
    assert f'</div><p class="note">Baseline evaluation run <code>{baseline}</code>.</p><h2>Study run</h2>' in html
    assert (
        '<h2>Metrics at k, every system</h2><p class="note">Every system of the series as <code>run'
        " label:retriever</code>: the baseline run's retrievers and each later run's retriever the baseline does"
        " not have (a system written elsewhere, ours beside it). Mean over the evaluated queries with a 95%"
        " percentile bootstrap interval over queries. Definitions follow trec_eval (see"
        " dbt_project/models/marts/evaluation/_evaluation__models.yml); R-precision does not depend on k.</p><div"
        in html
    )
    assert "</script><h3>Chosen on the tune fold, reported on the report fold</h3><div" in html
    assert page._provenance(con, "no such series").startswith(
        "<h2>Provenance</h2><p>Study run <code>no such series</code>, started , code version <code></code>."
    )
    assert (
        'Metrics at k, every system</h2><p class="note">Every system of the series as <code>run label:retriever' in html
    )


def test_a_series_without_alerts_or_fusion_and_the_latest_by_default(warehouse):
    con = warehouse
    series = run_of(con, "demo_monitoring")
    html = page.render(con, series)
    assert (
        '<h2>Alerts</h2><p class="note">Sorted by' in html
        and "is not testable and has no severity. </p><p>No alerts.</p>" in html
    )
    assert "Fusion sweep" not in html and "Dense vs BM25" not in html and "<h2>Latency</h2><div" in html
    newest = con.execute(
        "select series_run_id from marts.dim_evaluation_runs e join marts.dim_runs r on r.run_id = e.series_run_id"
        " order by r.started_at desc limit 1"
    ).fetchone()[0]
    assert re.sub(r"chart-\d+", "", page.render(con)) == re.sub(r"chart-\d+", "", page.render(con, newest))
    external = run_of(con, "demo_external_runs")
    alerts = _alerts(con, external)
    counts = page._alert_counts(alerts)
    assert counts.startswith(f"{len(alerts)} alerts: <b>0 significant</b>")
    assert "2 within noise, 2 not testable (no query paired with the baseline)." in counts
    assert page.render(duckdb.connect()) == (
        '<p class="note">No retrieval evaluation has been analysed in this warehouse yet.</p>'
    )


def test_alert_counts_name_each_kind_of_check_not_flagged():
    def alert(status, significant=False, **judged):
        return {"status": status, "is_significant": significant, **judged}

    holm = {"family": "the series' breaches", "family_size": 9, "adjustment": "Holm", "alpha": 0.05, "p_adjusted": 0.2}
    more = {**holm, "family_size": 10}  # a second family: named after the first, in the order of their text
    unjudged = {**holm, "family_size": 1, "p_adjusted": None}  # a row with a family but no adjusted p
    found = [
        alert("tested", True, **holm),
        alert("tested", **holm),
        alert("tested", **more),
        alert("too few queries", **unjudged),
        alert("not testable"),
        alert("not testable"),
        alert("baseline"),
    ]
    assert page._alert_counts(found) == (
        "7 alerts: <b>1 significant</b> (a paired change unlikely under no change; Holm-adjusted within the"
        " series&#x27; breaches (10 tests), α = 0.05; Holm-adjusted within the series&#x27; breaches (9 tests),"
        " α = 0.05),"
        " 2 within noise, 1 on too few paired queries to test,"
        " 2 not testable (no query paired with the baseline), 1 not tested (breaches of the baseline run itself)."
    )
    assert page._alert_counts([alert("baseline")]) == (
        "1 alert: <b>0 significant</b> (a paired change unlikely under no change), 1 not tested (breaches of the"
        " baseline run itself)."
    )


def test_single_values_and_a_series_that_does_not_drift():
    import pandas as pd

    assert page._single_values(pd.DataFrame(columns=["label", "retriever", "metric", "value", "baseline_value"])) == ""
    single = pd.DataFrame(
        [{"label": "w2", "retriever": "bm25", "metric": "mrr@10", "value": 0.5, "baseline_value": 0.25}]
    )
    with capturing_tables() as tables:
        shown = page._single_values(single)
    assert re.findall(r"<th>([^<]*)", shown) == ["run", "retriever", "metric", "value", "baseline"]
    assert list(tables[0].data.columns) == ["label", "retriever", "metric", "value", "baseline_value"]
    assert shown.startswith(
        '<p class="note">Checked metrics with a single value in this series (a line needs two runs):</p><div'
    )
    assert "<td>w2</td><td>bm25</td><td>mrr@10</td><td>0.5</td><td>0.25</td></tr></tbody>" in shown


def test_the_metrics_table_pivots_by_k_then_system_order_with_percent_recall():
    import pandas as pd

    def row(system, k, metric, value, low, high):
        return {"retriever": system, "k": k, "metric": metric, "value": value, "ci_low": low, "ci_high": high}

    metrics = pd.DataFrame(
        [
            row("b:bm25", 5, "recall", 0.5, 0.4, 0.6),
            row("a:dense", 5, "mrr", 0.25, 0.125, 0.5),
            row("b:bm25", 1, "ndcg", 0.3333, 0.2, 0.41),
            row("a:dense", 5, "hit_rate", 0.75, 0.5, 1.0),
        ]
    )
    body = re.findall(r"<tr>(.*?)</tr>", between(page._metrics_table(metrics), "<tbody>", "</tbody>"))
    missing = "<td>–</td>"
    assert body == [
        "<td>b:bm25</td><td>1</td>" + missing * 5 + "<td>0.333 [0.200, 0.410]</td>" + missing * 2,
        "<td>b:bm25</td><td>5</td><td>50.0% [40.0%, 60.0%]</td>" + missing * 7,
        "<td>a:dense</td><td>5</td>"
        + missing * 3
        + "<td>75.0% [50.0%, 100.0%]</td><td>0.250 [0.125, 0.500]</td>"
        + missing * 3,
    ]


def test_alpha_001_and_benjamini_hochberg_on_the_alerts_are_what_the_page_states(demo_site):
    con = writable_copy(demo_site, "evaluation")
    series = run_of(con, "demo_evaluation")
    con.execute("update analysis.evaluation_alerts set alpha = 0.01, adjustment = 'Benjamini-Hochberg'")
    html = page.render(con, series)
    verdict = between(html, '<p class="verdict">', "</p>")
    assert "Benjamini-Hochberg-adjusted within the series&#x27; breaches (22 tests), α = 0.01)" in verdict
    assert "Holm" not in verdict
    con.execute("delete from marts.fct_evaluation_alert_checks where series_run_id = ?", [series])
    assert (
        '<h2>Drift over the series</h2><p class="note">No retriever of this series ran in two or more runs:'
        " nothing drifts; its systems are compared above.</p>" in page.render(con, series)
    )


def test_each_alert_row_reads_its_change_with_the_decimals_of_its_wider_bound():
    con = duckdb.connect()
    con.execute("create schema analysis")
    con.execute(
        "create table analysis.evaluation_alerts (series_run_id varchar, position integer, label varchar,"
        " retriever varchar, metric varchar, value double, baseline_value double, direction varchar,"
        " threshold double, severity varchar, is_significant boolean, mean_change double, change_ci_low double,"
        " change_ci_high double, p_value double, n_paired_queries integer, status varchar)"
    )
    con.execute(
        "insert into analysis.evaluation_alerts values"
        " ('s', 1, 'w1', 'bm25', 'mrr@10', 0.71234, 0.8, 'below', 0.75, null, false, 0.0123, -0.5, 0.0467, 0.5,"
        " 1200, null),"
        " ('s', 2, 'w2', 'bm25', 'mrr@10', 0.7, 0.8, 'below', 0.75, null, false, 0.0123, -0.0467, 0.5, 0.25, 64,"
        " 'tested'),"
        " ('s', 3, 'w3', 'bm25', 'mrr@10', 0.7, 0.8, 'below', 0.75, null, false, 0.123, 0.0467, 0.05, 0.25, 64,"
        " 'tested')"
    )
    rows = re.findall(r"<tr>(<td>.*?)</tr>", page._alerts(con, "s"))
    assert rows == [  # the largest change first
        "<td>w3</td><td>bm25</td><td>mrr@10</td><td>no</td><td>–</td><td>0.123</td><td>[0.047, 0.050]</td>"
        "<td>0.25</td><td>0.7 vs 0.8</td><td>below 0.75</td><td>64</td><td>tested</td>",
        "<td>w1</td><td>bm25</td><td>mrr@10</td><td>no</td><td>–</td><td>0.012</td><td>[-0.500, 0.047]</td>"
        "<td>0.50</td><td>0.712 vs 0.8</td><td>below 0.75</td><td>1,200</td><td>–</td>",
        "<td>w2</td><td>bm25</td><td>mrr@10</td><td>no</td><td>–</td><td>0.012</td><td>[-0.047, 0.500]</td>"
        "<td>0.25</td><td>0.7 vs 0.8</td><td>below 0.75</td><td>64</td><td>tested</td>",
    ]
