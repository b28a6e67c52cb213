"""A page per monitored system: its weekly evaluations as control charts, its alerts, latency and versions.

``monitoring/<study>-<label>.html`` for every system a monitored study evaluated live in at least
one tick (:mod:`biaswh.dashboards.evaluation.series_data`). It leads with what happened to the
system's alerts, then shows each checked metric over the weeks (the value and its 95% bootstrap
interval, the baseline's value, the threshold's limit, and each breached week's paired test),
the alerts' lifecycle, latency p50/p95, and what changed between two ticks (a source's version,
the version the system reported).
"""

from __future__ import annotations

import datetime

import duckdb
import pandas as pd

from biaswh.dashboards.common.addresses import run_file, safe_name
from biaswh.dashboards.common.format import fixed, interval, number, p_value, plural, shared_decimals
from biaswh.dashboards.common.html import chart, table, text
from biaswh.dashboards.common.runs import data_kind
from biaswh.dashboards.common.site import register_page_set
from biaswh.dashboards.common.verdict_policy import policy_phrase
from biaswh.dashboards.evaluation.series_charts import control_chart, latency_chart
from biaswh.dashboards.evaluation.series_data import (
    alert_states,
    latency_weeks,
    metric_weeks,
    monitored_systems,
    tick_of,
    version_weeks,
)

SERIES_FOLDER = "monitoring"


def series_file(study: str, label: str) -> str:
    """The address of one monitored system's series page (site-relative)."""
    return f"{SERIES_FOLDER}/{safe_name(study)}-{safe_name(label)}.html"


def _week(value) -> str:
    return value.isoformat() if isinstance(value, datetime.date) else str(value)


def limit(row: dict) -> float | None:
    """The value a check's threshold draws the line at: the threshold itself, or for ``drop_pct``
    the baseline's value less that percentage."""
    if row["threshold"] is None:
        return None
    if row["direction"] == "drop_pct":
        return None if row["baseline_value"] is None else row["baseline_value"] * (1 - row["threshold"] / 100)
    return row["threshold"]


def rule_text(row: dict) -> str:
    """The threshold in words: "alert more than 10% below the baseline", "alert below 0.5", "alert above 200"."""
    if row["threshold"] is None:
        return "no threshold"
    if row["direction"] == "drop_pct":
        return f"alert more than {number(row['threshold'])}% below the baseline"
    return f"alert {row['direction']} {number(row['threshold'])}"


def week_status(row: dict) -> str:
    """The week's word on the chart and in the tables (series_charts.WEEK_STATUSES)."""
    if not row["is_breached"]:
        return "within threshold"
    return "significant breach" if row["is_significant"] else "breach, not significant"


def test_text(row: dict) -> str:
    """The week's paired test in words: its p (and adjusted p) and the policy it was judged by."""
    if not row["is_breached"]:
        return "not tested (within its threshold)"
    if row["p_value"] is None:
        return f"not tested ({row['status'] or 'no paired query'})"
    adjusted = "" if row["p_adjusted"] is None else f", adjusted p {p_value(row['p_adjusted'])}"
    policy = policy_phrase(row["adjustment"], int(row["family_size"] or 1), float(row["alpha"]))
    return f"p {p_value(row['p_value'], floor=row['min_p'])}{adjusted} ({policy})"


def _value(row: dict) -> str:
    places = shared_decimals(row["value"], row["ci_low"], row["ci_high"])
    return f"{fixed(row['value'], places)} {interval(row['ci_low'], row['ci_high'], places=places)}"


def _lead(system: str, alerts: list[dict], rows: list[dict], n_weeks: int) -> str:
    """The finding first: each alert's life in one sentence, else that none opened."""
    if not alerts:
        breached = sum(1 for r in rows if r["is_breached"])
        within = (
            "every checked metric stayed within its threshold"
            if not breached
            else (f"{plural(breached, 'breach', 'breaches')} of a threshold, none significant")
        )
        return f"<p class='verdict'>No alert on {text(system)} in {plural(n_weeks, 'week')}: {within}.</p>"
    sentences = []
    for alert in alerts:
        severity = text(alert["severity"] or "no severity")
        opened = f"{text(alert['metric'])} ({severity}) opened in the week of {_week(alert['opened_partition'])}"
        value = f"at {fixed(alert['opened_value'], 3)} against the baseline's {fixed(alert['baseline_value'], 3)}"
        if alert["state"] == "resolved":
            closing = f"resolved in the week of {_week(alert['resolved_partition'])}"
        else:
            closing = f"{text(alert['state'])} since, last seen in the week of {_week(alert['last_partition'])}"
        sentences.append(f"{opened} {value}; {closing}.")
    head = f"<b>{plural(len(alerts), 'alert')} on {text(system)}</b> in {plural(n_weeks, 'week')}: "
    return f"<p class='verdict'>{head}{' '.join(sentences)}</p>"


def _metric_section(metric: str, rows: list[dict], alerts: list[dict]) -> str:
    weeks = pd.DataFrame(
        [
            {**{k: r[k] for k in ("value", "ci_low", "ci_high", "baseline_value")}, "week": _week(r["week"]),
             "limit": limit(r), "status": week_status(r), "p_text": test_text(r)}
            for r in rows
        ]
    )  # fmt: skip
    own = [a for a in alerts if a["metric"] == metric]
    events = pd.DataFrame(
        [{"week": _week(a["opened_partition"]), "event": "opened"} for a in own]
        + [{"week": _week(a["resolved_partition"]), "event": "resolved"} for a in own if a["resolved_partition"]],
        columns=["week", "event"],
    )
    title = f"{metric}: {rule_text(rows[0])}"
    body = [
        [_week(r["week"]), _value(r), fixed(r["baseline_value"], 3), fixed(limit(r), 3), week_status(r), test_text(r)]
        for r in rows
    ]
    return (
        f"<h3>{text(title)}</h3>"
        + chart(control_chart(weeks, events, title=title), name=f"control_{safe_name(metric)}")
        + table(["week", "value_ci_95", "baseline_value", "limit", "week_status", "paired_test"], body)
    )


def sources_text(inputs) -> str:
    """The source versions a tick read, e.g. "qrels demo_qrels v1, squad demo_validation v1"."""
    return ", ".join(f"{i['dataset']} {i['name']} v{i['version']}" for i in inputs or []) or "–"


def _changes(versions: list[dict]) -> str:
    """A row per tick: the system version and sources it read, and what differs from the tick before."""
    rows, before = [], None
    for v in versions:
        sources, changed = sources_text(v["inputs"]), []
        if before is not None and sources != sources_text(before["inputs"]):
            changed.append(f"sources: {sources_text(before['inputs'])} → {sources}")
        if before is not None and v["system_version"] != before["system_version"]:
            changed.append(f"system version: {before['system_version'] or '–'} → {v['system_version'] or '–'}")
        first = "first tick shown" if before is None else "nothing"
        rows.append([_week(v["week"]), v["system_version"] or "not reported", sources, "; ".join(changed) or first])
        before = v
    columns = ["week", "system_version", "sources_read", "changed_since_previous_week"]
    return "<h2>What changed between evaluations</h2>" + table(columns, rows)


def series_body(con: duckdb.DuckDBPyConnection, system: dict) -> str:
    """One monitored system's page body."""
    study, label = system["study_name"], system["label"]
    rows = metric_weeks(con, study, label)
    alerts = alert_states(con, study, label)
    parts = [_lead(system["system"], alerts, rows, system["n_weeks"])]
    parts.append(
        f"<p class='note'>Study <code>{text(study)}</code>, evaluation run <code>{text(label)}</code> of each weekly "
        "tick, against the series' baseline run. A week's value is the mean over its queries with a 95% "
        "bootstrap interval; a week that breaches its threshold is tested against the baseline on the queries "
        "both answered (paired sign-flip randomization test, exact where feasible), and an alert opens only on "
        "a significant breach, stays open while the breach lasts and resolves when the metric is back within "
        "its threshold.</p>"
    )
    parts.append("<h2>Each checked metric, week by week</h2>")
    for metric in dict.fromkeys(r["metric"] for r in rows):
        parts.append(_metric_section(metric, [r for r in rows if r["metric"] == metric], alerts))
    parts.append("<h2>Alerts</h2>")
    columns = ["alert_id", "metric", "severity", "state", "opened_partition", "last_partition"]
    columns += ["resolved_partition", "opened_p_value", "acknowledged_note", "n_delivered"]
    shown = [[p_value(a[c]) if c == "opened_p_value" else a[c] for c in columns] for a in alerts]
    listed = table(columns, shown) if alerts else "<p>No alert opened.</p>"
    parts.append(listed)
    latency = latency_weeks(con, study, label)
    if latency:
        long = pd.DataFrame(
            [
                {"week": _week(r["week"]), "quantile": q, "ms": r[f"latency_{q}_ms"]}
                for r in latency
                for q in ("p50", "p95")
            ]
        )
        parts += ["<h2>Latency</h2>", chart(latency_chart(long), name="latency")]
    parts.append(_changes(version_weeks(con, study, label)))
    ticks = sorted({(r["week"], r["series_run_id"]) for r in rows})
    links = ", ".join(f'<a href="{text(run_file(run))}">{_week(week)}</a>' for week, run in ticks)
    parts.append(f"<p class='note'>Each week's study run: {links}.</p>")
    return "".join(parts)


def series_links(con: duckdb.DuckDBPyConnection, series_run_id: str) -> str:
    """For a monitoring tick's evaluation page: a line linking its systems' series pages ("" otherwise)."""
    tick = tick_of(con, series_run_id)
    if tick is None:
        return ""
    study, week = tick
    systems = [s for s in monitored_systems(con) if s["study_name"] == study]
    links = ", ".join(f'<a href="{text(series_file(study, s["label"]))}">{text(s["system"])}</a>' for s in systems)
    return f"<p class='note'>This run is the weekly tick of {_week(week)}; every week of each system: {links}.</p>"


@register_page_set
def series_pages(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, str, str]]:
    """A page per monitored system: (file name, title, body, data kind of its latest tick)."""
    pages = []
    for system in monitored_systems(con):
        rows = metric_weeks(con, system["study_name"], system["label"])
        latest = max(rows, key=lambda r: r["week"])["series_run_id"] if rows else None
        title = f"Monitoring: {system['system']} ({system['study_name']})"
        kind = data_kind(con, latest) if latest else "real"
        pages.append((series_file(system["study_name"], system["label"]), title, series_body(con, system), kind))
    return pages
