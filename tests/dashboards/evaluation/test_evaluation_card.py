"""The evaluation card reads its series' alerts under the verdict policy they were judged by.

A planted series holds significant breaches of several severities, a breach not tested, a check
with no query paired with the baseline, a latency breach and another series' breaches; each
assertion reads one rule: which alert leads and how the card names it, the family's size, its
adjustment and alpha (Benjamini-Hochberg at 0.01 here), and the top-five table with its download.
"""

from __future__ import annotations

import csv
import io
import json
import re

import duckdb

from biaswh.dashboards.evaluation.card import evaluation_card

COLUMNS = {
    "series_run_id": "varchar", "label": "varchar", "retriever": "varchar", "metric": "varchar", "value": "double",
    "baseline_value": "double", "severity": "varchar", "depends_on_machine": "boolean", "status": "varchar",
    "n_paired_queries": "integer", "min_p": "double", "n_nonzero": "integer", "mean_change": "double",
    "change_ci_low": "double", "change_ci_high": "double", "p_adjusted": "double", "adjustment": "varchar",
    "alpha": "double", "is_significant": "boolean",
}  # fmt: skip


def _alert(label, severity, change, p_adjusted, *, metric="recall", series="s1", machine=False, **fields) -> dict:
    return {
        "series_run_id": series,
        "label": label,
        "retriever": "bm25",
        "metric": metric,
        "value": None if change is None else 0.7 + change,
        "baseline_value": 0.7,
        "severity": severity,
        "depends_on_machine": machine,
        "status": "tested",
        "n_paired_queries": 40,
        "min_p": 1e-4,
        "n_nonzero": 40,
        "mean_change": change,
        "change_ci_low": None if change is None else change - 0.05,
        "change_ci_high": None if change is None else change + 0.05,
        "p_adjusted": p_adjusted,
        "adjustment": "Benjamini-Hochberg",
        "alpha": 0.01,
        "is_significant": p_adjusted is not None and p_adjusted < 0.01,
        **fields,
    }


def _warehouse(alerts: list[dict]) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("create schema analysis")
    con.execute(f"create table analysis.evaluation_alerts ({', '.join(f'{c} {t}' for c, t in COLUMNS.items())})")
    con.executemany(
        f"insert into analysis.evaluation_alerts values ({', '.join('?' * len(COLUMNS))})",
        [[a[c] for c in COLUMNS] for a in alerts],
    )
    return con


def _verdict(body: str) -> str:
    return re.sub(r"<[^>]+>", "", re.search(r'<p class="verdict">(.*?)</p>', body, flags=re.S).group(1))


def _table(body: str) -> tuple[list[str], list[list[str]], list[dict]]:
    """The card table's header, its rows as shown, and the rows its download holds."""
    header = [re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<th[^>]*>(.*?)</th>", body)]
    rows = [re.findall(r"<td[^>]*>(.*?)</td>", tr) for tr in re.findall(r"<tr>(.*?)</tr>", body, flags=re.S)]
    payload = re.search(r'<script type="application/json" class="table-data">(.*?)</script>', body).group(1)
    return header, [r for r in rows if r], list(csv.DictReader(io.StringIO(json.loads(payload))))


SERIES = [
    _alert("week 2", "medium", -0.40, 0.001, metric="ndcg"),  # the largest change, but medium
    _alert("week 3", "high", -0.05, 0.004, metric="mrr"),
    _alert("week 4", "high", 0.15, 0.002, metric="precision"),  # the largest change among the high ones
    _alert("week 5", "low", -0.30, 0.20),
    _alert("week 6", "high", None, None, status="baseline"),  # a breach not tested: counted, not in the family
    _alert("week 7", "high", -0.90, None, status="not testable", n_paired_queries=0),  # no breach to count
    _alert("week 2", "high", 0.50, 0.001, metric="latency_p95", machine=True),
    _alert("week 2", "high", -0.60, 0.0001, metric="ndcg", series="s2"),  # another series
]


def test_the_lead_is_the_largest_change_of_the_most_severe_level_with_the_policys_family():
    verdict = _verdict(evaluation_card(_warehouse(SERIES), run_id="s1"))
    assert verdict == (
        "3 of 5 threshold breaches are significant against the baseline (family: 4 tested breaches of the"
        " series, Benjamini-Hochberg-adjusted, α = 0.01); the largest change among the high ones:"
        " week 4, bm25 precision 0.7 → 0.85 (change 95% CI [0.100, 0.200], Benjamini-Hochberg p = 0.0020)."
        " Latency, which measures the machine that ran the series: 1 threshold breach, 1 significant"
        " (their own family: 1 tested breach)."
    )


def test_the_most_severe_is_named_only_when_no_other_is_as_severe():
    alone = _verdict(evaluation_card(_warehouse(SERIES[1:2] + SERIES[3:4]), run_id="s1"))
    assert "; the significant one: week 3, bm25 mrr" in alone
    severe = _verdict(evaluation_card(_warehouse(SERIES[:2]), run_id="s1"))
    assert "; the most severe: week 3, bm25 mrr" in severe


def test_severities_outside_the_three_levels_are_below_them_and_named_as_stored():
    # the SQL orders an unknown severity with the low ones, by the size of the change
    planted = [_alert("week 2", "critical", -0.3, 0.001), _alert("week 3", "urgent", -0.1, 0.001)]
    verdict = _verdict(evaluation_card(_warehouse(planted), run_id="s1"))
    assert "; the largest change among the critical ones: week 2" in verdict
    below = [_alert("week 2", "urgent", -0.3, 0.001), _alert("week 3", "low", -0.1, 0.001)]
    assert "; the largest change among the urgent ones: week 2" in _verdict(evaluation_card(_warehouse(below), "s1"))


def test_the_table_shows_the_significant_breaches_then_the_machines_with_their_adjusted_p():
    header, rows, download = _table(evaluation_card(_warehouse(SERIES), run_id="s1"))
    columns = ["run", "retriever", "metric", "baseline", "value", "change 95% CI", "Benjamini-Hochberg p", "severity"]
    assert header == columns
    assert rows == [
        ["week 4", "bm25", "precision", "0.7", "0.85", "[0.100, 0.200]", "0.0020", "high"],
        ["week 3", "bm25", "mrr", "0.7", "0.65", "[-0.100, 0.000]", "0.0040", "high"],
        ["week 2", "bm25", "ndcg", "0.7", "0.3", "[-0.450, -0.350]", "0.0010", "medium"],
        ["week 2", "bm25", "latency_p95", "0.7", "1.2", "[0.450, 0.550]", "0.0010", "high"],
    ]
    assert [(r["label"], r["metric"], float(r["p_adjusted"])) for r in download] == [
        ("week 4", "precision", 0.002),
        ("week 3", "mrr", 0.004),
        ("week 2", "ndcg", 0.001),
        ("week 2", "latency_p95", 0.001),
    ]


def test_the_table_holds_the_top_five():
    planted = [_alert(f"week {i}", "high", -0.1 * i, 0.001) for i in range(1, 7)]
    _, rows, download = _table(evaluation_card(_warehouse(planted), run_id="s1"))
    assert [r[0] for r in rows] == [d["label"] for d in download] == [f"week {i}" for i in (6, 5, 4, 3, 2)]


def test_a_lead_with_few_paired_queries_names_its_floor():
    # 5 of 6 queries changed: the smallest two-sided sign-flip p is 2 of 2^5 flips
    planted = [_alert("week 2", "high", -0.3, 0.004, n_paired_queries=6, n_nonzero=5, min_p=2 / 2**5)]
    verdict = _verdict(evaluation_card(_warehouse(planted), run_id="s1"))
    assert verdict.endswith("p = 0.0040; 6 paired queries (5 changed): no p below 0.062 is possible).")


def test_no_significant_breach_reads_no_drift_with_the_family():
    planted = [_alert("week 5", "low", -0.3, 0.2), _alert("week 6", "high", -0.2, 0.04)]
    body = evaluation_card(_warehouse(planted), run_id="s1")
    assert _verdict(body) == (
        "No significant drift: 2 threshold breaches, none significant against the baseline (paired sign-flip"
        " randomization test; family: 2 tested breaches of the series, Benjamini-Hochberg-adjusted, α = 0.01)."
    )
    assert "<table" not in body


def test_without_a_stored_adjustment_or_alpha_the_family_is_holm_at_the_default_alpha():
    planted = [_alert("week 5", "low", -0.3, 0.2, adjustment=None, alpha=None)]
    assert "family: 1 tested breach of the series, Holm-adjusted, α = 0.05" in _verdict(
        evaluation_card(_warehouse(planted), run_id="s1")
    )


def test_without_a_stored_alpha_the_family_is_judged_at_the_runs_recorded_policy():
    con = _warehouse([_alert("week 5", "low", -0.3, 0.2, alpha=None)])
    con.execute("create schema marts")
    con.execute(
        "create table marts.dim_runs as select 's1' as run_id, '{}' as run_parameters,"
        ' \'{"settings": {"verdicts": {"alpha": 0.001}}}\' as parameters'
    )
    assert "Benjamini-Hochberg-adjusted, α = 0.001)." in _verdict(evaluation_card(con, run_id="s1"))


def test_no_card_without_alerts_or_runs():
    assert evaluation_card(duckdb.connect(), run_id="s1") is None
    assert evaluation_card(_warehouse(SERIES)) is None  # no succeeded run recorded


def test_without_a_run_the_card_is_the_latest_succeeded_series_with_its_earlier_runs():
    con = _warehouse([*SERIES, _alert("week 9", "high", -0.2, 0.001, series="s3")])
    con.execute("create schema marts")
    con.execute(
        "create table marts.dim_runs as select * from (values ('s1', 'drift', 'succeeded', timestamp '2026-01-02'),"
        " ('s2', 'drift', 'succeeded', timestamp '2026-01-01'), ('s3', 'drift', 'failed', timestamp '2026-01-03'))"
        " as runs(run_id, run_name, run_status, started_at), (select '{}' as parameters)"
    )
    con.execute("create table marts.dim_evaluation_runs as select unnest(['s1', 's2', 's3']) as series_run_id")
    body = evaluation_card(con)
    assert _verdict(body).startswith("3 of 5 threshold breaches are significant")
    assert "Latest run <code>s1</code>; 1 earlier run of this study in its page's run selector." in body
    assert "Latest run <code>s2</code>; 4 earlier runs" in evaluation_card(con, "s2", 5)
    assert "Latest run <code>s2</code>.</p>" in evaluation_card(con, "s2")
    assert '<p class="note">Significant alerts (top 5)</p>' in body
