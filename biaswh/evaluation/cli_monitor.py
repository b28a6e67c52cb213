"""``biaswh monitor STUDY --once`` (one weekly tick, for cron) and ``biaswh alerts [ack ID --note ...]``."""

from __future__ import annotations

import contextlib
import datetime
import io

from biaswh.cli_help import HOME
from biaswh.command_registry import register_command
from biaswh.warehouse.errors import UserError


def _date(text: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise UserError(f"--partition {text!r}: must be a date YYYY-MM-DD") from None


def _monitor_arguments(monitor) -> None:
    monitor.add_argument("study", help="a study config with a [monitoring] table")
    how = monitor.add_mutually_exclusive_group(required=True)
    how.add_argument("--once", action="store_true", help="run one tick (the last week started, or --partition)")
    how.add_argument("--through", metavar="YYYY-MM-DD", help="a tick per week from [monitoring] start through this one")
    monitor.add_argument("--partition", metavar="YYYY-MM-DD", help="with --once: the week to evaluate (its start date)")
    monitor.add_argument("--quiet", action="store_true", help="one line per tick (its run and alert changes)")


@register_command(
    "monitor",
    summary="run monitoring ticks of a study: evaluate its live systems for a week, open/resolve/deliver alerts",
    arguments=_monitor_arguments,
    order=75,
    writes=True,
    explained={
        "monitor": (
            "One weekly tick of a monitored study (its [monitoring] table) without a scheduler: an"
            " immutable study run for the week, then its alerts opened once, kept while the breach"
            " lasts, resolved, and delivered to [[monitoring.deliver]]. For a cron line.",
            "biaswh monitor studies/demo_monitoring.toml --once --partition 2026-01-26",
            f"Writes a study run, analysis.evaluation_alert_events and _deliveries of {HOME}; a failed"
            " delivery is a recorded attempt, never a failed tick.",
        )
    },
)
def monitor(args) -> None:
    """``biaswh monitor STUDY --once [--partition D]`` or ``--through D``: the ticks, in week order."""
    from biaswh.analysis.evaluation.steps_monitoring import monitoring_start
    from biaswh.evaluation.monitor import default_partition, run_tick
    from biaswh.warehouse.runs.study import load_study

    if args.through and args.partition:
        raise UserError("--partition goes with --once; --through runs every week up to its date")
    if args.once:
        weeks = [_date(args.partition) if args.partition else default_partition(args.study)]
    else:
        start, through = monitoring_start(load_study(args.study, check_steps=False)), _date(args.through)
        weeks = [start + datetime.timedelta(days=7 * n) for n in range((through - start).days // 7 + 1)]
        if not weeks:
            raise UserError(f"--through {through}: before [monitoring] start = {start}")
    for week in weeks:
        with contextlib.redirect_stdout(io.StringIO()) if args.quiet else contextlib.nullcontext():
            run_id = run_tick(args.study, week)
        print(f"tick {week}: study run {run_id}; alerts: {_changes(run_id)}", flush=True)


def _changes(run_id: str) -> str:
    """The alert changes tick ``run_id`` recorded, e.g. ``1 opened``."""
    from biaswh.warehouse.database.connection import open_warehouse

    with open_warehouse(read_only=True) as con:
        counts = con.execute(
            "select event, count(*) from analysis.evaluation_alert_events where run_id = ?"
            " group by event order by event",
            [run_id],
        ).fetchall()
    return ", ".join(f"{n} {event}" for event, n in counts) or "no change"


def _alerts_arguments(alerts) -> None:
    alerts.add_argument("action", nargs="?", choices=("list", "ack"), default="list", help="list (default) or ack")
    alerts.add_argument("alert_id", nargs="?", help="with ack: the alert's id (see biaswh alerts)")
    alerts.add_argument("--note", help="with ack: who has it and what is being done")
    alerts.add_argument("--study", help="only this study's alerts (its name)")
    alerts.add_argument("--all", action="store_true", help="resolved alerts too (default: open and acknowledged)")


@register_command(
    "alerts",
    summary="list monitoring alerts (open and acknowledged), or acknowledge one: alerts ack ID --note ...",
    arguments=_alerts_arguments,
    order=76,
    writes=lambda args: args.action == "ack",
    explained={
        "alerts": (
            "The alerts of monitored studies with their state (open, acknowledged, resolved), or"
            " `ack ID --note ...` to acknowledge one (it stays until the check is back within threshold).",
            'biaswh alerts ack 3f2a9c1b7d0e --note "index rebuild running (ana)"',
            f"Reads the contract view evaluation_alert_state of {HOME}; ack adds an event row.",
        )
    },
)
def alerts(args) -> None:
    """``biaswh alerts``: list; ``biaswh alerts ack ID --note N``: acknowledge."""
    from biaswh.evaluation.alert_commands import acknowledge, list_alerts

    if args.action == "ack":
        if not args.alert_id:
            raise UserError("alerts ack: give the alert's id (biaswh alerts lists them)")
        acknowledge(args.alert_id, note=args.note)
    else:
        if args.alert_id or args.note:
            raise UserError("alerts: an id and --note go with ack (biaswh alerts ack ID --note ...)")
        list_alerts(study=args.study, include_resolved=args.all)
