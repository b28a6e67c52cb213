"""Monitoring ticks: one week of a monitored evaluation study, then its alerts' lifecycle.

A tick is one immutable study run of a study with a ``[monitoring]`` table
(:mod:`biaswh.analysis.evaluation.steps_monitoring`): its parameters record the week it
evaluates (``settings.monitoring.partition``, the week's start date), its live systems are
asked now (a callable taking ``partition`` is given that date), and its threshold checks
compare their answers with the series' baseline run on the same queries (paired tests, as
every evaluation series does). The baseline is the ``baseline = true`` run of
``[[evaluation.runs]]``, evaluated again in every tick: a pinned reference, e.g. the system's
answers in a known-good week as a run file (``biaswh trec export``), so a slow drift over
many weeks still shows (a comparison with last week would hide it). After the run, the alert
lifecycle (:mod:`biaswh.analysis.evaluation.alert_lifecycle`) opens, keeps, resolves and
delivers alerts. ``biaswh monitor STUDY --once`` runs one tick; Dagster's schedule calls
:func:`run_tick` per partition.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
from pathlib import Path
from typing import Iterator

from biaswh.analysis.evaluation.steps_monitoring import check_partition, latest_partition
from biaswh.warehouse.settings.home import home_set_to


@contextlib.contextmanager
def _warehouse_home(home: str | Path | None) -> Iterator[None]:
    """``BIASWH_HOME`` set to ``home`` for the duration (unchanged when None)."""
    if home is None:
        yield
        return
    with home_set_to(home):
        yield


def tick_study(study, partition: datetime.date):
    """``study`` as the tick of week ``partition`` evaluates it (the week in its settings)."""
    check_partition(study, partition)
    monitoring = {**study.settings["monitoring"], "partition": partition.isoformat()}
    return dataclasses.replace(study, settings={**study.settings, "monitoring": monitoring})


def run_tick(study_path: str | Path, partition: datetime.date, *, home: str | Path | None = None) -> str:
    """Run one monitoring tick of a study for the week starting ``partition``; return its study run id.

    Parameters
    ----------
    study_path : a study config with a ``[monitoring]`` table and the ``evaluation`` job and analysis.
    partition : the week's start date: ``[monitoring] start`` plus a whole number of weeks.
    home : the warehouse folder (default: ``$BIASWH_HOME``).

    Returns
    -------
    str
        The tick's study run id (``raw.runs``, kind ``study``); its parameters record the partition.

    Raises
    ------
    UserError
        A config or partition that does not fit (nothing is run). A failing delivery never
        raises: it is a failed attempt in ``analysis.evaluation_alert_deliveries``.
    """
    from biaswh.analysis.evaluation.alert_lifecycle import update_alerts
    from biaswh.pipeline import run_loaded_study
    from biaswh.plugins import load_plugins
    from biaswh.warehouse.database.command_lock import exclusive_command
    from biaswh.warehouse.runs.study import load_study

    with _warehouse_home(home), exclusive_command(f"biaswh monitor {study_path}"):
        load_plugins()
        study = tick_study(load_study(study_path, check_files=True), partition)
        print(f"[{study.name}] monitoring tick: the week of {partition}", flush=True)
        run_id, _ = run_loaded_study(study, build_site=False)
        update_alerts(study, run_id, partition)
        return run_id


def default_partition(study_path: str | Path, today: datetime.date | None = None) -> datetime.date:
    """The week a tick without ``--partition`` evaluates: the last one started by ``today`` (UTC)."""
    from biaswh.plugins import load_plugins
    from biaswh.warehouse.runs.study import load_study

    load_plugins()
    today = today or datetime.datetime.now(datetime.timezone.utc).date()
    return latest_partition(load_study(study_path), today)
