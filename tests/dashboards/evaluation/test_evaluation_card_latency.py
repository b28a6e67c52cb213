"""The evaluation card's headline counts the retrievers' breaches only: latency measures the machine.

A series run on a busy machine breaches its latency thresholds where a quiet one does not; the
alerts step judges those breaches in a family of their own (``depends_on_machine``). The card's
headline, its count and its family must read the same on any machine, and the latency breaches
are told apart in a sentence of their own.
"""

from __future__ import annotations

import re

import duckdb

from biaswh.dashboards.evaluation.card import evaluation_card

COLUMNS = (
    "series_run_id varchar, label varchar, retriever varchar, metric varchar, value double, baseline_value double,"
    " severity varchar, depends_on_machine boolean, status varchar, n_paired_queries integer, min_p double,"
    " n_nonzero integer, mean_change double, change_ci_low double, change_ci_high double, p_adjusted double,"
    " adjustment varchar, alpha double, is_significant boolean"
)


def _alert(label, metric, machine, p_adjusted, significant, status="tested"):
    return ("s1", label, "bm25", metric, 0.5, 0.7, "high", machine, status, 40, 1e-4, 12, -0.2, -0.3, -0.1,
            p_adjusted, "Holm", 0.05, significant)  # fmt: skip


def _warehouse(alerts: list[tuple]) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("create schema analysis")
    con.execute(f"create table analysis.evaluation_alerts ({COLUMNS})")
    if alerts:
        con.executemany(f"insert into analysis.evaluation_alerts values ({', '.join('?' * 19)})", alerts)
    return con


def _verdict(body: str) -> str:
    return re.sub(r"<[^>]+>", "", re.search(r'<p class="verdict">(.*?)</p>', body, flags=re.S).group(1))


QUALITY = [
    _alert("week 2", "recall", False, 0.004, True),
    _alert("week 3", "ndcg", False, 0.30, False),
    _alert("week 1", "mrr", False, None, False, status="baseline"),
]
LATENCY = [
    _alert("week 2", "latency_p95", True, 0.01, True),
    _alert("week 3", "latency_p95", True, 0.40, False),
    _alert("week 4", "latency_p95", True, 0.60, False),
]


def test_latency_breaches_stay_out_of_the_headline_and_are_told_apart():
    verdict = _verdict(evaluation_card(_warehouse(QUALITY + LATENCY), run_id="s1"))
    assert verdict.startswith("1 of 3 threshold breaches are significant against the baseline")
    assert "(family: 2 tested breaches of the series, Holm-adjusted, α = 0.05)" in verdict
    assert "the significant one: week 2, bm25 recall" in verdict
    assert verdict.endswith(
        "Latency, which measures the machine that ran the series: 3 threshold breaches, 1 significant"
        " (their own family: 3 tested breaches)."
    )


def test_the_headline_is_the_same_with_or_without_the_machines_breaches():
    quiet = _verdict(evaluation_card(_warehouse(QUALITY), run_id="s1"))
    busy = _verdict(evaluation_card(_warehouse(QUALITY + LATENCY), run_id="s1"))
    assert busy.startswith(quiet) and "Latency" not in quiet


def test_no_significant_quality_breach_reads_no_drift_even_when_latency_is_significant():
    quality = [_alert("week 3", "ndcg", False, 0.30, False)]
    verdict = _verdict(evaluation_card(_warehouse(quality + LATENCY), run_id="s1"))
    assert verdict.startswith("No significant drift: 1 threshold breach, none significant against the baseline")
    assert "family: 1 tested breach of the series" in verdict
    assert "3 threshold breaches, 1 significant (their own family: 3 tested breaches)." in verdict


def test_a_series_without_a_breach_names_the_policy_its_config_declared():
    """No alert row says the adjustment: the card reads the run's recorded [verdicts], not a default."""
    con = _warehouse([])
    con.execute("create schema marts")
    con.execute("create table marts.dim_runs (run_id varchar, parameters json, run_parameters json)")
    settings = '{"settings": {"verdicts": {"adjustment": "bh", "alpha": 0.01}}}'
    con.execute("insert into marts.dim_runs values ('s1', ?, '{}')", [settings])
    verdict = _verdict(evaluation_card(con, run_id="s1"))
    assert verdict.startswith("No significant drift: 0 threshold breaches")
    assert "family: 0 tested breaches of the series, Benjamini-Hochberg-adjusted, α = 0.01)" in verdict
    con.execute("update marts.dim_runs set parameters = '{\"settings\": {}}'")
    assert "Holm-adjusted, α = 0.05)" in _verdict(evaluation_card(con, run_id="s1"))
