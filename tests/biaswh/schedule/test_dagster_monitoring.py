"""Weekly partitions of studies/demo_monitoring.toml through Dagster's in-process execution.

The demo's live system loses half its index in the weeks of 2026-01-26 and 2026-02-02 and
recovers on 2026-02-09. Those three partitions of the session's monitoring series
(:mod:`tests.monitoring_series`) were materialized through Dagster, after a week run by
``run_tick`` and before one more: each ran the study's tick asset (one study run and its alerts'
lifecycle, in one warehouse) and its ``thresholds_hold`` check reported the week's breaches.
"""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from biaswh.warehouse.database.connection import open_warehouse
from biaswh.warehouse.settings.home import HOME_VARIABLE
from tests.conftest import copy_warehouse
from tests.monitoring_series import DAGSTER_WEEKS
from tests.monitoring_series import WEEKS as SERIES_WEEKS

pytestmark = pytest.mark.dbt

STUDY = Path(__file__).resolve().parents[3] / "studies" / "demo_monitoring.toml"
DROP, SECOND_DROP_WEEK, RECOVERED = "2026-01-26", "2026-02-02", "2026-02-09"
WEEKS = [DROP, SECOND_DROP_WEEK, RECOVERED]  # materialized through Dagster in the series


@pytest.fixture(scope="module")
def ticks(dagster_extra, monitoring_series):
    """The series' warehouse, each partition materialized through Dagster with its check result, and the
    study's Dagster definitions."""
    from biaswh.plugins import load_plugins
    from biaswh.schedule.monitoring import monitoring_definitions

    checks = {t.week.isoformat(): t.check_passed for t in monitoring_series.ticks if t.check_passed is not None}
    assert list(checks) == WEEKS == [week.isoformat() for week in DAGSTER_WEEKS]
    load_plugins()
    return monitoring_series.home, checks, monitoring_definitions(STUDY)


def test_the_partitions_open_exactly_one_alert_on_the_planted_week_and_resolve_it(ticks, monkeypatch):
    home, _, _ = ticks
    monkeypatch.setenv(HOME_VARIABLE, str(home))
    with open_warehouse(read_only=True) as con:
        events = con.execute(
            "select cast(partition as varchar), event from analysis.evaluation_alert_events"
            " where study_name = 'demo_monitoring' order by partition, event"
        ).fetchall()
        runs = con.execute(
            "select parameters->>'$.settings.monitoring.partition', count(*) from raw.runs"
            " where kind = 'study' and name = 'demo_monitoring' and status = 'succeeded' group by all order by 1"
        ).fetchall()
    assert runs == [(week.isoformat(), 1) for week in SERIES_WEEKS]  # one immutable study run per partition
    assert [(week, event) for week, event in events if event == "opened"] == [(DROP, "opened")]
    assert (SECOND_DROP_WEEK, "persisting") in events
    assert [(week, event) for week, event in events if event == "resolved"] == [(RECOVERED, "resolved")]


def test_the_thresholds_check_fails_in_the_planted_weeks_only(ticks):
    _, checks, _ = ticks
    assert [week for week, passed in checks.items() if not passed] == [DROP, SECOND_DROP_WEEK]


def test_the_schedule_runs_the_week_started_by_its_firing(ticks):
    import dagster as dg

    _, _, definitions = ticks
    (schedule,) = [s for s in definitions.schedules if s.name == "monitor_demo_monitoring_schedule"]
    assert schedule.cron_schedule == "0 6 * * 1"
    fired = datetime.datetime(2026, 1, 28, 6, tzinfo=datetime.timezone.utc)  # a Wednesday: that week's Monday
    request = schedule(dg.build_schedule_context(scheduled_execution_time=fired))
    assert request.partition_key == DROP


def test_the_sensor_starts_an_evaluation_when_a_qrels_version_changes_and_not_otherwise(ticks, tmp_path, monkeypatch):
    import dagster as dg

    from biaswh.ingest.evaluation.qrels import load_qrels

    home, _, definitions = ticks
    monkeypatch.setenv(HOME_VARIABLE, str(copy_warehouse(home, tmp_path / "warehouse")))
    (sensor,) = [s for s in definitions.sensors if s.name == "monitor_demo_monitoring_sources"]
    with dg.instance_for_test() as instance:
        unchanged = sensor(dg.build_sensor_context(instance=instance))
        assert isinstance(unchanged, dg.SkipReason) and "still the newest version" in unchanged.skip_message
        judged = (STUDY.parent / "demo_data" / "evaluation" / "demo_qrels.csv").read_text(encoding="utf-8")
        changed = tmp_path / "demo_qrels.csv"  # the same qrels name, one judgment changed: a new version
        changed.write_text(judged.replace("0,1,1\n", "0,1,2\n", 1), encoding="utf-8")
        with open_warehouse() as con:
            assert load_qrels(con, changed, query_set="squad_questions:demo_validation").status == "loaded"
        request = sensor(dg.build_sensor_context(instance=instance))
    assert request.tags["biaswh/changed_sources"] == "qrels demo_qrels v1 -> v2"
    assert datetime.date.fromisoformat(request.partition_key).weekday() == SERIES_WEEKS[0].weekday()
