"""The rows of a monitored system's series page: one row per weekly tick, per checked metric.

A monitored study's ticks (``biaswh monitor``, Dagster's partitions) are study runs whose
parameters record their week (``settings.monitoring.partition``). In each tick a live system is
one evaluation run (its label) compared with the series' baseline run; this module gathers, per
tick, each checked metric with its bootstrap interval, threshold and paired test, the alerts'
lifecycle, the system's latency, and the versions the tick read. Only SQL and row shaping here.
"""

from __future__ import annotations

import duckdb

from biaswh.dashboards.common.queries import query_dicts, relation_exists

# Every evaluation run of a monitoring tick: its study, week and the system it evaluated.
_TICK_RUNS = """
select
    runs.run_name as study_name,
    cast(json_extract_string(runs.parameters, '$.settings.monitoring.partition') as date) as week,
    runs.run_id as series_run_id,
    evaluation.run_id,
    evaluation.label,
    evaluation.is_baseline
from marts.dim_runs as runs
inner join marts.dim_evaluation_runs as evaluation on evaluation.series_run_id = runs.run_id
where runs.run_kind = 'study' and runs.run_status = 'succeeded'
    and json_extract_string(runs.parameters, '$.settings.monitoring.partition') is not null
"""


def tick_of(con: duckdb.DuckDBPyConnection, run_id: str) -> tuple[str, object] | None:
    """(study name, week) when study run ``run_id`` is a monitoring tick, else None."""
    if not relation_exists(con, "marts", "dim_runs"):
        return None
    found = con.execute(
        "select run_name, cast(json_extract_string(parameters, '$.settings.monitoring.partition') as date)"
        " from marts.dim_runs where run_id = ?",
        [run_id],
    ).fetchone()
    return None if found is None or found[1] is None else (found[0], found[1])


def monitored_systems(con: duckdb.DuckDBPyConnection) -> list[dict]:
    """Each (study, label) evaluated in at least one tick besides the baseline: its system (the
    retriever its checks name, e.g. the live system's name) and its number of weeks."""
    if not relation_exists(con, "marts", "dim_evaluation_runs"):
        return []
    return query_dicts(
        con,
        f"""
        select ticks.study_name, ticks.label, string_agg(distinct checks.retriever, ', ') as system,
            count(distinct ticks.week) as n_weeks
        from ({_TICK_RUNS}) as ticks
        inner join marts.fct_evaluation_alert_checks as checks on checks.run_id = ticks.run_id
        where not ticks.is_baseline
        group by ticks.study_name, ticks.label
        order by ticks.study_name, ticks.label""",
    )


def metric_weeks(con: duckdb.DuckDBPyConnection, study: str, label: str) -> list[dict]:
    """Per tick and checked metric: the value and its interval, baseline, threshold, breach and test."""
    return query_dicts(
        con,
        f"""
        with ticks as ({_TICK_RUNS})
        select ticks.week, ticks.series_run_id, checks.run_id, checks.retriever, checks.metric,
            checks.metric_name, checks.k, checks.value, checks.baseline_value, checks.direction, checks.threshold,
            checks.severity, checks.is_breached, metrics.ci_low, metrics.ci_high,
            alerts.is_significant, alerts.p_value, alerts.p_adjusted, alerts.alpha, alerts.adjustment,
            alerts.family_size, alerts.status, alerts.p_method, alerts.min_p, alerts.n_paired_queries,
            alerts.mean_change, alerts.change_ci_low, alerts.change_ci_high
        from ticks
        inner join marts.fct_evaluation_alert_checks as checks on checks.run_id = ticks.run_id
        left join analysis.evaluation_metrics_at_k as metrics
            on metrics.run_id = checks.run_id and metrics.query_set = checks.query_set
            and metrics.retriever = checks.retriever and metrics.metric = checks.metric_name
            and metrics.k = checks.k
        left join analysis.evaluation_alerts as alerts
            on alerts.run_id = checks.run_id and alerts.query_set = checks.query_set
            and alerts.retriever = checks.retriever and alerts.metric = checks.metric
        where ticks.study_name = ? and ticks.label = ?
        order by checks.metric, ticks.week""",
        [study, label],
    )


def alert_states(con: duckdb.DuckDBPyConnection, study: str, label: str) -> list[dict]:
    """The study's alerts on this system: opened, last seen, resolved (or still open), acknowledged."""
    if not relation_exists(con, "analysis", "evaluation_alert_state"):
        return []
    return query_dicts(
        con,
        "select alert_id, retriever, metric, severity, state, opened_partition, resolved_partition,"
        " last_partition, opened_value, baseline_value, opened_p_value, acknowledged_note, n_delivered"
        " from analysis.evaluation_alert_state where study_name = ? and label = ? order by opened_partition",
        [study, label],
    )


def latency_weeks(con: duckdb.DuckDBPyConnection, study: str, label: str) -> list[dict]:
    """Per tick: the system's per-query latency p50 and p95 (ms), and how many queries it answered."""
    live = relation_exists(con, "marts", "agg_evaluation_live_runs")
    answered = "live.n_answered, live.n_asked, live.n_failed" if live else "null as n_answered, null, null"
    joined = (
        "left join marts.agg_evaluation_live_runs as live on live.run_id = ticks.run_id"
        " and live.query_set = latency.query_set"
        if live
        else ""
    )
    return query_dicts(
        con,
        f"""
        with ticks as ({_TICK_RUNS})
        select ticks.week, latency.retriever, latency.latency_p50_ms, latency.latency_p95_ms, {answered}
        from ticks
        inner join marts.agg_evaluation_latency as latency on latency.run_id = ticks.run_id
        {joined}
        where ticks.study_name = ? and ticks.label = ?
        order by ticks.week, latency.retriever""",
        [study, label],
    )


def version_weeks(con: duckdb.DuckDBPyConnection, study: str, label: str) -> list[dict]:
    """Per tick: the system version it reported, and the source versions the tick read (``inputs``:
    a list of dataset, name and version)."""
    live = relation_exists(con, "marts", "agg_evaluation_live_runs")
    version = "min(live.system_version)" if live else "null"
    joined = "left join marts.agg_evaluation_live_runs as live on live.run_id = ticks.run_id" if live else ""
    return query_dicts(
        con,
        f"""
        with ticks as ({_TICK_RUNS})
        select ticks.week, ticks.series_run_id, {version} as system_version, any_value(runs.inputs) as inputs
        from ticks
        inner join marts.dim_runs as runs on runs.run_id = ticks.series_run_id
        {joined}
        where ticks.study_name = ? and ticks.label = ?
        group by ticks.week, ticks.series_run_id
        order by ticks.week""",
        [study, label],
    )
