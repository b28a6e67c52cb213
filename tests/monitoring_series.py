"""Five weekly ticks of the monitoring demo, run once per test session (a plugin of tests/conftest.py).

Every tick is a whole study run (ingest, two dbt builds, evaluation, analysis) and the alerts'
lifecycle; the modules about monitoring (the ticks and their deliveries, Dagster's partitions,
the series page) read one series instead of each running its own. Under `make test` they share
one xdist group (``monitoring``, :mod:`tests.scheduling`), so the series is built once, on one
worker. Read only: a test that changes the warehouse works on :func:`tests.conftest.copy_warehouse`
of :attr:`MonitoringSeries.home`.

The demo's live system (a shipped demo callable) loses half its index in the weeks of
2026-01-26 and 2026-02-02 and recovers on 2026-02-09. The series ticks the demo's first week
(healthy), both weeks of the drop, the recovery and the week after it. The weeks `make demo` also
runs (2026-01-12, 2026-01-19, 2026-02-23) are healthy too: the callable answers them exactly as the
first week and the week after the recovery, so their ticks would repeat those ticks' checks. A tick
after a skipped week is judged against the alerts still open, as any tick is. The alerts go to a
webhook receiver on 127.0.0.1 (its URL, a secret, from the environment), to a Slack-format one, to
a webhook that always fails, to one whose variable is unset, and to a file. Between the ticks the
alert is acknowledged through the CLI. The weeks of the drop and the recovery (:data:`DAGSTER_WEEKS`) run
through Dagster's in-process execution where the dagster extra is installed: the study's tick asset
(biaswh/schedule/monitoring.py) with its ``thresholds_hold`` check, which
tests/biaswh/schedule/test_dagster_monitoring.py reads instead of running ticks of its own.
"""

from __future__ import annotations

import datetime
import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import duckdb
import pytest

from biaswh.warehouse.settings.home import REPOSITORY_ROOT

STUDY = REPOSITORY_ROOT / "studies" / "demo_monitoring.toml"
START = datetime.date(2026, 1, 5)
WEEKS = [START + datetime.timedelta(days=7 * n) for n in (0, 3, 4, 5, 6)]  # see the module docstring
DROP, RECOVERED = datetime.date(2026, 1, 26), datetime.date(2026, 2, 9)
SECRET_PATH = "/hooks/T0001/B0002/very-secret-token"
ACK_NOTE = "index rebuild running (ana)"
DAGSTER_WEEKS = (DROP, DROP + datetime.timedelta(days=7), RECOVERED)

# The first tick's own rows: the later ticks must leave them as they were.
_FIRST_TICK = (
    "select * from raw.retrieval_results where run_id in"
    " (select run_id from raw.evaluation_runs where series_run_id = ?) order by all",
    "select * exclude (created_at) from raw.evaluation_runs where series_run_id = ? order by all",
    "select * from analysis.evaluation_metrics_at_k where run_id in"
    " (select run_id from raw.evaluation_runs where series_run_id = ?) order by all",
    "select * from raw.runs where run_id = ?",
)


class Receiver:
    """A webhook on 127.0.0.1 recording every JSON body; ``status`` is what it answers."""

    def __init__(self, status: int = 200) -> None:
        self.bodies: list[dict] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                receiver.bodies.append(json.loads(self.rfile.read(int(self.headers["content-length"]))))
                self.send_response(status)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}{SECRET_PATH}"


@dataclass(frozen=True)
class Tick:
    """One tick as the series saw it: its week and run, the alert states after it, the bodies received
    so far, and for a week run through Dagster whether its ``thresholds_hold`` check passed (else None)."""

    week: datetime.date
    run_id: str
    alert_states: list
    generic_bodies: int
    slack_bodies: int
    check_passed: bool | None = None


@dataclass(frozen=True)
class MonitoringSeries:
    """The warehouse after the five ticks (``home``), its config's folder (``folder``), the
    receivers (generic, slack, broken), each tick and the first tick's rows read right after it."""

    home: Path
    folder: Path
    receivers: tuple[Receiver, Receiver, Receiver]
    ticks: list[Tick]
    first_tick_rows: list


def first_tick_rows(con, run_id: str) -> list:
    """The rows study run ``run_id`` (a tick) wrote: its retrieval results, evaluation runs and metrics, its run."""
    return [con.execute(sql, [run_id]).fetchall() for sql in _FIRST_TICK]


def series_config(folder: Path) -> str:
    """demo_monitoring.toml with its data paths absolute and five delivery channels, written in ``folder``."""
    text = STUDY.read_text(encoding="utf-8").replace('"demo_data/', f'"{STUDY.parent}/demo_data/')
    text += f"""
[[monitoring.deliver]]
webhook_env = "TEST_ALERT_WEBHOOK"
format = "json"
[[monitoring.deliver]]
webhook_env = "TEST_SLACK_WEBHOOK"
format = "slack"
[[monitoring.deliver]]
webhook_env = "TEST_BROKEN_WEBHOOK"
retries = 2
backoff = 0
[[monitoring.deliver]]
webhook_env = "TEST_UNSET_WEBHOOK"
[[monitoring.deliver]]
file = "{folder}/alerts.jsonl"
"""
    path = folder / "demo_monitoring.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def dagster_ticks(config: str):
    """A function running one week's tick through Dagster, returning (run id, thresholds_hold passed),
    or None where the dagster extra is missing. It runs in ``$BIASWH_HOME``, as the asset does."""
    from biaswh.schedule.extra import missing_dagster_extra

    if missing_dagster_extra():
        return None
    import dagster as dg

    from biaswh.plugins import load_plugins
    from biaswh.schedule.monitoring import monitoring_definitions

    load_plugins()
    asset = monitoring_definitions(Path(config)).resolve_assets_def(dg.AssetKey(["monitoring", "demo_monitoring"]))
    instance = dg.DagsterInstance.ephemeral()

    def tick(week: datetime.date) -> tuple[str, bool]:
        result = dg.materialize([asset], partition_key=week.isoformat(), instance=instance)
        assert result.success
        (materialized,) = result.get_asset_materialization_events()
        (evaluation,) = result.get_asset_check_evaluations()
        return materialized.materialization.metadata["run_id"].value, evaluation.passed

    return tick


@pytest.fixture(scope="session")
def monitoring_series(tmp_path_factory) -> MonitoringSeries:
    """The five ticks of the monitoring demo, once per session (see the module docstring)."""
    from biaswh.evaluation.monitor import run_tick
    from tests.conftest import run_here

    folder = tmp_path_factory.mktemp("monitoring-series")
    home, config = folder / "warehouse", series_config(folder)
    generic, slack, broken = Receiver(), Receiver(), Receiver(status=503)
    ticks, first_rows = [], None
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BIASWH_HOME", str(home))  # where a tick run by Dagster's asset goes
        patch.setenv("DAGSTER_HOME", str(folder))  # Dagster writes nothing anywhere else
        patch.setenv("TEST_ALERT_WEBHOOK", generic.url)
        patch.setenv("TEST_SLACK_WEBHOOK", slack.url)
        patch.setenv("TEST_BROKEN_WEBHOOK", broken.url)
        patch.delenv("TEST_UNSET_WEBHOOK", raising=False)
        through_dagster = dagster_ticks(config)
        for week in WEEKS:
            passed = None
            if through_dagster and week in DAGSTER_WEEKS:
                run_id, passed = through_dagster(week)
            else:
                run_id = run_tick(config, week, home=home)
            with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
                state = con.execute("select alert_id, state from evaluation_alert_state").fetchall()
                if week == WEEKS[0]:
                    first_rows = first_tick_rows(con, run_id)
            ticks.append(Tick(week, run_id, state, len(generic.bodies), len(slack.bodies), passed))
            if week == DROP:  # acknowledged by a person after the alert arrived
                ((alert_id, _),) = state
                run_here("alerts", "ack", alert_id, "--note", ACK_NOTE, home=home)
    for receiver in (generic, slack, broken):
        receiver.server.shutdown()
        receiver.server.server_close()
    return MonitoringSeries(home, folder, (generic, slack, broken), ticks, first_rows)
