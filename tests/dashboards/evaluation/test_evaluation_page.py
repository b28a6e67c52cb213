"""The evaluation page's alerts: significant first, then by severity, then by the size of the change."""

from __future__ import annotations

import re

from biaswh.dashboards.evaluation.page import _alerts


def test_alerts_sort_by_significance_severity_and_size_of_change(con):
    con.execute("create schema if not exists analysis")
    con.execute(
        "create table analysis.evaluation_alerts (series_run_id varchar, position integer, label varchar,"
        " retriever varchar, metric varchar, value double, baseline_value double, direction varchar,"
        " threshold double, severity varchar, is_significant boolean, mean_change double,"
        " change_ci_low double, change_ci_high double, p_value double, n_paired_queries integer)"
    )
    rows = [  # (position, label, severity, significant, change, p)
        (1, "small-high-noise", "high", False, -0.30, 0.4),
        (1, "sig-low", "low", True, -0.50, 0.0),
        (2, "sig-high-small", "high", True, -0.05, 0.01),
        (2, "sig-high-large", "high", True, -0.20, 0.002),
        (3, "sig-medium", "medium", True, 0.90, 0.03),
    ]
    con.executemany(
        "insert into analysis.evaluation_alerts values ('s', ?, ?, 'bm25', 'recall@5', 0.7, 0.8,"
        " 'below', 0.75, ?, ?, ?, -0.3, -0.01, ?, 64)",
        rows,
    )
    html = _alerts(con, "s")
    labels = re.findall(r"<tr><td>([a-z-]+)</td>", html)
    assert labels == ["sig-high-large", "sig-high-small", "sig-medium", "sig-low", "small-high-noise"]
    assert "4 significant" in html and "&lt; 0.001" in html  # a resampling p of 0 is not printed as 0
    assert '<div class="table-box tall">' in html  # the long table scrolls inside its own box


def test_alerts_name_the_floor_of_few_queries_and_untestable_checks(con):
    con.execute("create schema if not exists analysis")
    con.execute(
        "create table analysis.evaluation_alerts (series_run_id varchar, position integer, label varchar,"
        " retriever varchar, metric varchar, value double, baseline_value double, direction varchar,"
        " threshold double, severity varchar, is_significant boolean, mean_change double,"
        " change_ci_low double, change_ci_high double, p_value double, n_paired_queries integer,"
        " status varchar, min_p double, n_nonzero integer)"
    )
    con.execute(
        "insert into analysis.evaluation_alerts values"
        " ('s', 1, 'week-2', 'prod', 'mrr@10', 0.5, 1.0, 'below', 0.6, 'medium', true, -0.5, -0.5, -0.5,"
        " 0.03125, 6, 'tested', 0.03125, 6),"
        " ('s', 3, 'ours', 'bm25', 'mrr@10', 0.8, null, 'below', 0.9, null, false, null, null, null,"
        " null, 0, 'not testable', null, null)"
    )
    html = _alerts(con, "s")
    assert "<td>0.031 (smallest possible)</td>" in html and "&lt; 0.001" not in html
    assert "6 paired queries: no p below 0.031 is possible." in html
    assert "2 alerts: <b>1 significant</b>" in html and "noise" not in html  # no tested breach within noise
    assert "change), 1 not testable (no query paired with the baseline)." in html
    assert "<td>0</td><td>not testable</td>" in html


def test_metrics_at_k_axis_spans_the_data_not_a_padded_log_range():
    import pandas as pd

    from biaswh.dashboards.evaluation.charts import metrics_at_k_chart

    df = pd.DataFrame(
        {
            "retriever": ["bm25"] * 3,
            "k": [1, 5, 20],
            "metric": ["recall"] * 3,
            "value": [0.5, 0.8, 0.9],
            "ci_low": [0.4, 0.7, 0.8],
            "ci_high": [0.6, 0.9, 1.0],
        }
    )
    band = metrics_at_k_chart(df).to_dict()["spec"]["layer"][0]
    assert band["encoding"]["x"]["scale"]["domain"] == [1, 20]
    assert band["encoding"]["x"]["axis"]["values"] == [1, 2, 5, 10, 20]


def test_the_alert_count_names_the_policy_that_judged_each_family(con):
    con.execute("create schema if not exists analysis")
    con.execute(
        "create table analysis.evaluation_alerts (series_run_id varchar, position integer, label varchar,"
        " retriever varchar, metric varchar, value double, baseline_value double, direction varchar,"
        " threshold double, severity varchar, is_significant boolean, mean_change double,"
        " change_ci_low double, change_ci_high double, p_value double, n_paired_queries integer,"
        " status varchar, family varchar, family_size integer, adjustment varchar, alpha double, p_adjusted double)"
    )
    con.execute(
        "insert into analysis.evaluation_alerts values"
        " ('s', 1, 'week-2', 'bm25', 'recall@5', 0.5, 0.8, 'below', 0.6, 'high', true, -0.3, -0.4, -0.2,"
        " 0.001, 64, 'tested', 'the series'' breaches', 2, 'bh', 0.01, 0.002),"
        " ('s', 2, 'week-3', 'bm25', 'recall@5', 0.7, 0.8, 'below', 0.75, 'low', false, -0.1, -0.2, 0.01,"
        " 0.2, 64, 'tested', 'the series'' breaches', 2, 'bh', 0.01, 0.2)"
    )
    html = _alerts(con, "s")
    assert (
        "2 alerts: <b>1 significant</b> (a paired change unlikely under no change; Benjamini-Hochberg-adjusted"
        " within the series&#x27; breaches (2 tests), α = 0.01), 1 within noise." in html
    )
