"""Alerts with a lifecycle: opened once, kept open while a breach lasts, resolved, or acknowledged.

A monitored study's ticks (:mod:`biaswh.evaluation.monitor`) each end here. For every threshold
check of a non-baseline run of the tick (identity: study, run label, query set, retriever,
metric) the tick's result moves its alert:

- a significant breach (``analysis.evaluation_alerts.is_significant``) with no alert open: the
  alert is ``opened`` and delivered;
- a breach (significant or not) while the alert is open or acknowledged: ``persisting``, not
  delivered again;
- the check back within its threshold while the alert is open or acknowledged: ``resolved``,
  and the resolution delivered;
- ``biaswh alerts ack ID --note ...``: ``acknowledged`` (a person has it; it still resolves).

Every change is a row of ``analysis.evaluation_alert_events`` (append-only: a tick adds its own
rows, runs stay immutable); ``analysis.evaluation_alert_state`` (contract view
``evaluation_alert_state``) gives each alert's current state. An alert's id derives from its
identity and the week it opened, never from a run id. Weeks are judged forward: a tick for a
week at or before the last week that moved an alert of the study changes no alert (its own
alerts are in ``evaluation_alerts`` as for any run).
"""

from __future__ import annotations

import datetime
import hashlib

import polars as pl

from biaswh.analysis.common.store import replace_run_rows
from biaswh.analysis.evaluation.alert_delivery import DELIVERY_SCHEMA, deliver_events
from biaswh.warehouse.database.connection import open_warehouse
from biaswh.warehouse.database.transactions import transaction
from biaswh.warehouse.relations.column_docs import analysis_descriptions, sql_string
from biaswh.warehouse.relations.contracts import publish_contract_views, register_contract_relations

EVENT_SCHEMA = {
    "run_id": pl.String,
    "alert_id": pl.String,
    "event": pl.String,
    "study_name": pl.String,
    "partition": pl.Date,
    "evaluation_run_id": pl.String,
    "label": pl.String,
    "query_set": pl.String,
    "retriever": pl.String,
    "metric": pl.String,
    "severity": pl.String,
    "direction": pl.String,
    "threshold": pl.Float64,
    "value": pl.Float64,
    "baseline_value": pl.Float64,
    "p_value": pl.Float64,
    "p_adjusted": pl.Float64,
    "description": pl.String,
    "note": pl.String,
    "created_at": pl.Datetime("us"),
}
_CHANGES = ("opened", "acknowledged", "resolved")
register_contract_relations("analysis", "evaluation_alert_events", "evaluation_alert_state")

_TICK_CHECKS = """
select
    checks.run_id as evaluation_run_id, checks.label, checks.query_set, checks.retriever, checks.metric,
    checks.severity, checks.direction, checks.threshold, checks.value, checks.baseline_value,
    checks.description, checks.is_breached, coalesce(alerts.is_significant, false) as is_significant,
    alerts.p_value, alerts.p_adjusted
from marts.fct_evaluation_alert_checks as checks
left join analysis.evaluation_alerts as alerts
    on alerts.run_id = checks.run_id and alerts.query_set = checks.query_set
    and alerts.retriever = checks.retriever and alerts.metric = checks.metric
where checks.series_run_id = ? and checks.run_id <> checks.baseline_run_id
order by checks.position, checks.retriever, checks.metric
"""

STATE_VIEW = """
create or replace view analysis.evaluation_alert_state as
with events as (
    select * from analysis.evaluation_alert_events
),
opened as (
    select alert_id, study_name, label, query_set, retriever, metric, severity, direction, threshold,
        description, partition as opened_partition, value as opened_value, baseline_value,
        p_value as opened_p_value, created_at as opened_at
    from events where event = 'opened'
),
changes as (
    select alert_id, event, partition, note, created_at,
        row_number() over (
            partition by alert_id
            order by created_at desc, case event when 'resolved' then 3 when 'acknowledged' then 2 else 1 end desc
        ) as recency
    from events where event in ('opened', 'acknowledged', 'resolved')
),
seen as (
    select alert_id, max(partition) as last_partition, arg_max(value, partition) as last_value
    from events where event <> 'acknowledged' group by alert_id
),
notes as (
    select alert_id, arg_max(note, created_at) as acknowledged_note, max(created_at) as acknowledged_at
    from events where event = 'acknowledged' group by alert_id
),
deliveries as (
    select alert_id,
        count(case when status = 'delivered' then 1 end) as n_delivered,
        count(case when status = 'failed' then 1 end) as n_failed_attempts
    from analysis.evaluation_alert_deliveries group by alert_id
)
select
    opened.*,
    case latest.event when 'opened' then 'open' else latest.event end as state,
    seen.last_partition, seen.last_value,
    case when latest.event = 'resolved' then latest.partition end as resolved_partition,
    notes.acknowledged_note, notes.acknowledged_at,
    coalesce(deliveries.n_delivered, 0) as n_delivered,
    coalesce(deliveries.n_failed_attempts, 0) as n_failed_attempts
from opened
inner join changes as latest on latest.alert_id = opened.alert_id and latest.recency = 1
inner join seen on seen.alert_id = opened.alert_id
left join notes on notes.alert_id = opened.alert_id
left join deliveries on deliveries.alert_id = opened.alert_id
"""


def ensure_alert_tables(con) -> None:
    """Create the events and deliveries tables (empty) and the state view, when missing."""
    con.execute("create schema if not exists analysis")
    for table, schema in (("evaluation_alert_events", EVENT_SCHEMA), ("evaluation_alert_deliveries", DELIVERY_SCHEMA)):
        exists = con.execute(
            "select count(*) from information_schema.tables where table_schema = 'analysis' and table_name = ?",
            [table],
        ).fetchone()[0]
        if not exists:
            replace_run_rows(con, table, "", pl.DataFrame(schema=schema))
    con.execute(STATE_VIEW)
    description, columns = analysis_descriptions().get("evaluation_alert_state", ("", {}))
    con.execute(f"comment on view analysis.evaluation_alert_state is {sql_string(description)}")
    for name, text in columns.items():
        con.execute(f"comment on column analysis.evaluation_alert_state.{name} is {sql_string(text)}")


def alert_id(study_name: str, check: dict, opened: datetime.date) -> str:
    """A short id from the alert's identity and the week it opened (the same config: the same id)."""
    identity = "|".join([study_name, check["label"], check["query_set"], check["retriever"], check["metric"]])
    return hashlib.sha256(f"{identity}|{opened.isoformat()}".encode()).hexdigest()[:12]


def _event(run_id: str, alert: str, event: str, study_name: str, partition, check: dict, now) -> dict:
    row = {key: check.get(key) for key in EVENT_SCHEMA if key in check}
    return {**row, "run_id": run_id, "alert_id": alert, "event": event, "study_name": study_name,
            "partition": partition, "note": None, "created_at": now}  # fmt: skip


def _open_alerts(con, study_name: str) -> dict[tuple, str]:
    """Identity -> alert id of the study's alerts that are open or acknowledged."""
    rows = con.execute(
        "select label, query_set, retriever, metric, alert_id from analysis.evaluation_alert_state"
        " where study_name = ? and state in ('open', 'acknowledged')",
        [study_name],
    ).fetchall()
    return {tuple(row[:4]): row[4] for row in rows}


def judge_tick(con, study_name: str, run_id: str, partition: datetime.date) -> pl.DataFrame:
    """The lifecycle events of tick ``run_id`` (not yet stored); empty for a week already judged."""
    last = con.execute(
        "select max(partition) from analysis.evaluation_alert_events where study_name = ? and event <> 'acknowledged'",
        [study_name],
    ).fetchone()[0]
    if last is not None and partition <= last:
        print(f"  alerts: the week of {partition} is not after {last}, the last week judged: no alert changes")
        return pl.DataFrame(schema=EVENT_SCHEMA)
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    open_alerts = _open_alerts(con, study_name)
    events = []
    for check in con.execute(_TICK_CHECKS, [run_id]).pl().iter_rows(named=True):
        identity = (check["label"], check["query_set"], check["retriever"], check["metric"])
        current = open_alerts.get(identity)
        if current is None and check["is_breached"] and check["is_significant"]:
            opened = alert_id(study_name, check, partition)
            events.append(_event(run_id, opened, "opened", study_name, partition, check, now))
        elif current is not None:
            kind = "persisting" if check["is_breached"] else "resolved"
            events.append(_event(run_id, current, kind, study_name, partition, check, now))
    return pl.DataFrame(events, schema=EVENT_SCHEMA)


def update_alerts(study, run_id: str, partition: datetime.date) -> pl.DataFrame:
    """Judge tick ``run_id`` of ``study``, store its events, deliver the changes; return the events.

    A delivery that fails is recorded as a failed attempt and never raises.
    """
    with open_warehouse() as con:
        ensure_alert_tables(con)
        events = judge_tick(con, study.name, run_id, partition)
        with transaction(con):
            replace_run_rows(con, "evaluation_alert_events", run_id, events)
        counts = events["event"].value_counts().sort("event").iter_rows()
        print(f"  alerts: {', '.join(f'{n} {e}' for e, n in counts) or 'no alert changes'}", flush=True)
        deliveries = deliver_events(study, events.filter(pl.col("event").is_in(["opened", "resolved"])))
        with transaction(con):
            replace_run_rows(con, "evaluation_alert_deliveries", run_id, deliveries)
        publish_contract_views(con)
    return events
