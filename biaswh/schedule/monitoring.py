"""A monitored study (one with a ``[monitoring]`` table) on Dagster: weekly partitions, its schedule,
a sensor on its sources' versions, and an asset check of its thresholds.

Each study becomes one weekly-partitioned asset, ``monitoring/<study>``: a partition is a week
(``[monitoring] start`` plus whole weeks, keyed by its first day) and materializing it runs that
week's tick, :func:`biaswh.evaluation.monitor.run_tick` (one immutable study run, then the alerts'
lifecycle), exactly as ``biaswh monitor STUDY --once --partition DAY`` does. The asset's check
``thresholds_hold`` fails in a week whose evaluation breached a threshold beyond noise (a breach
whose paired test is significant). The schedule (``[monitoring] schedule``, a cron line, default
Mondays 06:00 UTC) starts the latest week's tick; the sensor starts it when a source the last tick
read (its corpus, its qrels) has a newer version in the warehouse. Dagster stores only its event
log: the tick's results, alerts and deliveries are warehouse rows.
"""

from __future__ import annotations

import datetime
import hashlib
import re
from pathlib import Path

import dagster as dg

from biaswh.analysis.evaluation.steps_monitoring import latest_partition, monitoring_start
from biaswh.warehouse.database.connection import open_warehouse
from biaswh.warehouse.runs.study import Study, load_study
from biaswh.warehouse.settings.home import warehouse_paths

DEFAULT_SCHEDULE = "0 6 * * 1"  # Mondays 06:00 (UTC)

# The tick's threshold checks that breached beyond noise: a breach with a significant paired test.
_SIGNIFICANT_BREACHES = """
select checks.label, checks.retriever, checks.metric, checks.severity, checks.value, checks.threshold,
    alerts.p_adjusted
from marts.fct_evaluation_alert_checks as checks
inner join analysis.evaluation_alerts as alerts
    on alerts.run_id = checks.run_id and alerts.query_set = checks.query_set
    and alerts.retriever = checks.retriever and alerts.metric = checks.metric
where checks.series_run_id = ? and checks.run_id <> checks.baseline_run_id
    and checks.is_breached and alerts.is_significant
order by checks.position, checks.retriever, checks.metric
"""

# Per (dataset, source name) the study's last tick read: its version then, and the newest now.
_SOURCE_VERSIONS = """
with last_tick as (
    select run_id from raw.runs
    where kind = 'study' and name = ? and status = 'succeeded'
    order by started_at desc limit 1
)
select inputs.dataset, inputs.source_name, inputs.version as version_read, max(versions.version) as newest
from raw.run_inputs as inputs
inner join last_tick using (run_id)
inner join raw.source_versions as versions
    on versions.dataset = inputs.dataset and versions.source_name = inputs.source_name
group by all
order by inputs.dataset, inputs.source_name
"""


def _name(study: Study) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", study.name)


def weekly_partitions(study: Study) -> dg.TimeWindowPartitionsDefinition:
    """The study's weeks: from ``[monitoring] start``, each keyed by its first day (``2026-01-05``)."""
    start = monitoring_start(study)
    return dg.WeeklyPartitionsDefinition(start_date=start.isoformat(), day_offset=start.isoweekday() % 7)


def significant_breaches(con, run_id: str) -> list[dict]:
    """The threshold checks of tick ``run_id`` that breached with a significant paired test."""
    return con.execute(_SIGNIFICANT_BREACHES, [run_id]).pl().to_dicts()


def _alert_events(con, run_id: str) -> dict[str, int]:
    exists = con.execute(
        "select count(*) from information_schema.tables"
        " where table_schema = 'analysis' and table_name = 'evaluation_alert_events'"
    ).fetchone()[0]
    if not exists:
        return {}
    rows = con.execute(
        "select event, count(*) from analysis.evaluation_alert_events where run_id = ? group by event order by event",
        [run_id],
    ).fetchall()
    return dict(rows)


def tick_asset(config: Path, study: Study) -> dg.AssetsDefinition:
    """The asset whose partition is one week's tick of ``study``, with its ``thresholds_hold`` check."""
    key = dg.AssetKey(["monitoring", _name(study)])

    @dg.asset(
        key=key,
        partitions_def=weekly_partitions(study),
        check_specs=[dg.AssetCheckSpec("thresholds_hold", asset=key, description="no significant threshold breach")],
        description=study.description or f"biaswh monitor {config.name}",
        group_name="monitoring",
    )
    def tick(context):
        from biaswh.evaluation.monitor import run_tick

        week = datetime.date.fromisoformat(context.partition_key)
        run_id = run_tick(config, week)
        with open_warehouse(read_only=True) as con:
            breaches = significant_breaches(con, run_id)
            events = _alert_events(con, run_id)
        failing = [f"{b['label']} {b['retriever']} {b['metric']} (p adjusted {b['p_adjusted']:.3g})" for b in breaches]
        severe = any(str(b["severity"]).lower() in ("high", "critical") for b in breaches)
        yield dg.MaterializeResult(
            metadata={"run_id": run_id, "week": week.isoformat(), **{f"alerts {e}": n for e, n in events.items()}},
            check_results=[
                dg.AssetCheckResult(
                    check_name="thresholds_hold",
                    passed=not breaches,
                    severity=dg.AssetCheckSeverity.ERROR if severe else dg.AssetCheckSeverity.WARN,
                    metadata={"run_id": run_id, "breaches": len(breaches), "breached": "; ".join(failing) or "none"},
                )
            ],
        )

    return tick


def tick_job(study: Study, asset: dg.AssetsDefinition) -> dg.UnresolvedAssetJobDefinition:
    """The job that runs one week's tick (its partition), in one process."""
    return dg.define_asset_job(
        f"monitor_{_name(study)}",
        selection=dg.AssetSelection.assets(asset),
        executor_def=dg.in_process_executor,
    )


def tick_schedule(study: Study, job) -> dg.ScheduleDefinition:
    """``[monitoring] schedule`` (a cron line, UTC): each firing runs the week started by then."""
    cron = (study.settings.get("monitoring") or {}).get("schedule") or DEFAULT_SCHEDULE

    @dg.schedule(name=f"monitor_{_name(study)}_schedule", cron_schedule=cron, job=job, execution_timezone="UTC")
    def weekly(context):
        week = latest_partition(study, context.scheduled_execution_time.date())
        return dg.RunRequest(partition_key=week.isoformat())

    return weekly


def newer_sources(con, study: Study) -> list[tuple[str, str, int, int]]:
    """``(dataset, source name, version read, newest version)`` of each source the study's last
    succeeded run read that has a newer version now (empty before the first run)."""
    return [row for row in con.execute(_SOURCE_VERSIONS, [study.name]).fetchall() if row[3] > row[2]]


def source_sensor(study: Study, job) -> dg.SensorDefinition:
    """A run of the latest week when a corpus or qrels version newer than the last tick's appears."""

    @dg.sensor(name=f"monitor_{_name(study)}_sources", job=job, minimum_interval_seconds=300)
    def sources_changed(context):
        if not warehouse_paths().duckdb_file.exists():
            return dg.SkipReason(f"{study.name}: no warehouse yet at {warehouse_paths().duckdb_file}")
        with open_warehouse(read_only=True) as con:
            changed = newer_sources(con, study)
        if not changed:
            return dg.SkipReason(f"{study.name}: every source its last run read is still the newest version")
        described = ", ".join(f"{dataset} {name} v{read} -> v{newest}" for dataset, name, read, newest in changed)
        week = latest_partition(study, datetime.datetime.now(datetime.timezone.utc).date())
        return dg.RunRequest(
            run_key=hashlib.sha256(described.encode()).hexdigest()[:16],  # one run per set of new versions
            partition_key=week.isoformat(),
            tags={"biaswh/changed_sources": described},
        )

    return sources_changed


def monitoring_definitions(config: Path) -> dg.Definitions:
    """The tick asset (with its check), its job, schedule and source sensor for a monitored study config."""
    study = load_study(config)
    asset = tick_asset(config, study)
    job = tick_job(study, asset)
    return dg.Definitions(
        assets=[asset], jobs=[job], schedules=[tick_schedule(study, job)], sensors=[source_sensor(study, job)]
    )
