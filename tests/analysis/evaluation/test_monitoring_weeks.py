"""The weeks of a monitored study: start + 7n days, the last one started by today, nothing else."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from biaswh.analysis.evaluation.steps_monitoring import check_partition, latest_partition
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.study import Study

START = datetime.date(2026, 1, 5)  # a Monday


def _study(monitoring: dict | None = None) -> Study:
    settings = {"monitoring": {"start": START.isoformat()} if monitoring is None else monitoring}
    return Study(Path("m.toml"), "m", 1, [], ["evaluation"], ["evaluation"], settings=settings)


@pytest.mark.parametrize(
    ("today", "week"),
    [
        ("2026-01-05", "2026-01-05"),
        ("2026-01-11", "2026-01-05"),
        ("2026-01-12", "2026-01-12"),
        ("2026-03-01", "2026-02-23"),
    ],
)
def test_a_tick_without_a_partition_evaluates_the_last_week_started(today, week):
    assert latest_partition(_study(), datetime.date.fromisoformat(today)) == datetime.date.fromisoformat(week)


def test_before_the_first_week_there_is_no_week_to_evaluate():
    with pytest.raises(UserError, match="is after today \\(2026-01-04\\)"):
        latest_partition(_study(), datetime.date(2026, 1, 4))


@pytest.mark.parametrize("week", ["2026-01-05", "2026-01-19", "2027-01-04"])
def test_every_week_from_the_start_is_a_partition(week):
    check_partition(_study(), datetime.date.fromisoformat(week))


@pytest.mark.parametrize("week", ["2025-12-29", "2026-01-06", "2026-01-18"])
def test_a_date_off_the_weeks_or_before_the_start_is_refused(week):
    with pytest.raises(UserError, match=f"--partition {week}: not a week of \\[monitoring\\] start = 2026-01-05"):
        check_partition(_study(), datetime.date.fromisoformat(week))


def test_a_study_without_monitoring_or_with_a_bad_start_is_refused_naming_the_field():
    with pytest.raises(UserError, match="m.toml: \\[monitoring\\] start: a monitored study needs"):
        check_partition(_study({}), START)
    with pytest.raises(UserError, match="m.toml: \\[monitoring\\] start: must be a date YYYY-MM-DD, not 'soon'"):
        check_partition(_study({"start": "soon"}), START)
