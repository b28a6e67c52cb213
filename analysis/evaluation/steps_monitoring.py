"""The study config's ``[monitoring]`` table: weekly ticks of an evaluation study and where alerts go.

```toml
[monitoring]
start = "2026-01-05"                       # the first weekly partition; each tick evaluates start + 7n days
schedule = "0 6 * * 1"                     # when a scheduler (Dagster, cron) starts a tick; default Monday 06:00

[[monitoring.deliver]]                     # a webhook: the URL is read from this variable, never stored
webhook_env = "BIASWH_ALERT_WEBHOOK"
format = "slack"                           # "json" (a generic payload, the default) or "slack" ({"text": ...})
retries = 3                                # after a timeout, lost connection, 429 or 5xx; backoff doubles
[[monitoring.deliver]]
file = "alerts.jsonl"                      # one JSON line per delivery; a relative path is in the warehouse folder
```

A tick (``biaswh monitor STUDY --once``, :func:`biaswh.evaluation.monitor.run_tick`) records its
week as ``[monitoring] partition`` in the study run's parameters; ``partition`` is not a key a
config sets.
"""

from __future__ import annotations

import datetime

from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.study import register_config_check
from biaswh.warehouse.settings.config_schema import (
    BACKOFF_SECONDS,
    RETRIES,
    STRING,
    TIMEOUT_SECONDS,
    ArrayOfTables,
    Choice,
    Table,
)
from biaswh.warehouse.settings.study_schema import register_config_section

DEFAULT_SCHEDULE = "0 6 * * 1"
MONITORING = Table(
    {
        "start": STRING,
        "schedule": STRING,
        "deliver": ArrayOfTables(
            Table(
                {
                    "webhook_env": STRING,
                    "format": Choice(("json", "slack")),
                    "file": STRING,
                    "timeout": TIMEOUT_SECONDS,
                    "retries": RETRIES,
                    "backoff": BACKOFF_SECONDS,
                }
            )
        ),
    },
    required=("start",),
)
register_config_section("monitoring", MONITORING)


def monitoring_start(study) -> datetime.date:
    """The first weekly partition of a monitored study; UserError when the study has none."""
    settings = study.settings.get("monitoring")
    if not settings:
        raise UserError(f"{study.path}: [monitoring] start: a monitored study needs a [monitoring] table with start")
    try:
        return datetime.date.fromisoformat(str(settings.get("start")))
    except ValueError:
        raise UserError(
            f"{study.path}: [monitoring] start: must be a date YYYY-MM-DD, not {settings.get('start')!r}"
        ) from None


def check_partition(study, partition: datetime.date) -> None:
    """UserError unless ``partition`` is one of the study's weeks (start + 7n days, n >= 0)."""
    start = monitoring_start(study)
    if partition < start or (partition - start).days % 7:
        raise UserError(
            f"{study.path}: --partition {partition}: not a week of [monitoring] start = {start}"
            f" (a week starts on {start:%A}s, from {start} on)"
        )


def latest_partition(study, today: datetime.date) -> datetime.date:
    """The last week that has started by ``today`` (the tick a cron line runs)."""
    start = monitoring_start(study)
    if today < start:
        raise UserError(f"{study.path}: [monitoring] start = {start} is after today ({today}): no week to evaluate")
    return start + datetime.timedelta(days=7 * ((today - start).days // 7))


@register_config_check("monitoring")
def check_monitoring(study) -> None:
    """Before any work: a valid start date, evaluation among the jobs, each delivery one channel."""
    settings = study.settings.get("monitoring")
    if not settings:
        return
    problems = []
    try:
        monitoring_start(study)
    except UserError as exc:
        problems.append(str(exc))
    if "evaluation" not in study.jobs or "evaluation" not in study.analysis:
        problems.append(f"{study.path}: [monitoring]: a monitored study runs the evaluation job and analysis step")
    for n, channel in enumerate(settings.get("deliver") or [], start=1):
        if ("webhook_env" in channel) == ("file" in channel):
            problems.append(f"{study.path}: [[monitoring.deliver]] #{n}: give exactly one of webhook_env or file")
        elif "file" in channel and {"format", "timeout", "retries", "backoff"} & set(channel):
            problems.append(f"{study.path}: [[monitoring.deliver]] #{n}: a file takes no format, timeout or retries")
    if problems:
        raise UserError("\n".join(problems))
