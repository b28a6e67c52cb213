"""What ``biaswh alerts`` does: list the alerts' current state, or acknowledge one."""

from __future__ import annotations

import datetime

import polars as pl

from biaswh.analysis.common.store import replace_run_rows
from biaswh.analysis.evaluation.alert_lifecycle import EVENT_SCHEMA, ensure_alert_tables
from biaswh.warehouse.database.connection import open_warehouse
from biaswh.warehouse.database.transactions import transaction
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.relations.contracts import publish_contract_views
from biaswh.warehouse.runs.registry import start_run

_COLUMNS = (
    "alert_id, state, study_name, retriever, metric, severity, opened_partition, last_partition,"
    " round(opened_value, 4) as opened_value, round(baseline_value, 4) as baseline_value,"
    " resolved_partition, n_delivered, acknowledged_note"
)


def _has_alerts(con) -> bool:
    found = con.execute(
        "select count(*) from information_schema.tables"
        " where table_schema = 'analysis' and table_name = 'evaluation_alert_state'"
    ).fetchone()[0]
    return bool(found)


def list_alerts(*, study: str | None = None, include_resolved: bool = False) -> pl.DataFrame:
    """Print (and return) the alerts, newest first: open and acknowledged ones, or all."""
    with open_warehouse(read_only=True) as con:
        if not _has_alerts(con):
            print("no alerts yet: a monitored study's ticks open them (biaswh monitor STUDY --once)")
            return pl.DataFrame()
        where, params = [], []
        if not include_resolved:
            where.append("state in ('open', 'acknowledged')")
        if study:
            where.append("study_name = ?")
            params.append(study)
        sql = f"select {_COLUMNS} from analysis.evaluation_alert_state"
        sql += (" where " + " and ".join(where) if where else "") + " order by opened_at desc, alert_id"
        frame = con.execute(sql, params).pl()
    if frame.is_empty():
        print("no open alerts" + ("" if include_resolved else " (--all shows resolved ones)"))
    else:
        with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=200, fmt_str_lengths=60):
            print(frame)
    return frame


def acknowledge(alert_id: str, *, note: str | None) -> str:
    """Record that a person has alert ``alert_id`` (an ``acknowledged`` event); return the event's run id."""
    with open_warehouse() as con:
        ensure_alert_tables(con)
        row = con.execute(
            "select state, study_name from analysis.evaluation_alert_state where alert_id = ?", [alert_id]
        ).fetchone()
        if row is None:
            raise UserError(f"alerts ack {alert_id}: no such alert (biaswh alerts --all lists them)")
        if row[0] != "open":
            raise UserError(f"alerts ack {alert_id}: the alert is {row[0]}, not open")
        opened = con.execute(
            "select * from analysis.evaluation_alert_events where alert_id = ? and event = 'opened'", [alert_id]
        ).pl()
        run = start_run(con, kind="alert_ack", name=row[1], parameters={"alert_id": alert_id, "note": note})
        now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
        event = opened.with_columns(
            pl.lit(run.run_id).alias("run_id"),
            pl.lit("acknowledged").alias("event"),
            pl.lit(note, pl.String).alias("note"),
            pl.lit(now).cast(EVENT_SCHEMA["created_at"]).alias("created_at"),
        ).select(list(EVENT_SCHEMA))
        with transaction(con):
            replace_run_rows(con, "evaluation_alert_events", run.run_id, event)
        run.finish()
        publish_contract_views(con)
    print(f"alert {alert_id} acknowledged" + (f": {note}" if note else ""))
    return run.run_id
