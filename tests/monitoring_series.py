"""The monitoring demo's eight weekly ticks, run once per test session (a plugin of tests/conftest.py).

Every tick is a whole study run (ingest, two dbt builds, evaluation, analysis) and the alerts'
lifecycle; the modules about monitoring (the ticks and their deliveries, Dagster's partitions,
the series page) read one series instead of each running its own. Under `make test` they share
one xdist group (``monitoring``, :mod:`tests.scheduling`), so the series is built once, on one
worker. Read only: a test that adds ticks works on :func:`tests.conftest.copy_warehouse` of
:attr:`MonitoringSeries.before_drop`.

The demo's live system (a shipped demo callable) loses half its index in the weeks of
2026-01-26 and 2026-02-02 and recovers on 2026-02-09. The alerts go to a webhook receiver on
127.0.0.1 (its URL, a secret, from the environment), to a Slack-format one, to a webhook that
always fails, to one whose variable is unset, and to a file. Between the ticks the alert is
acknowledged through the CLI.
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
WEEKS = [START + datetime.timedelta(days=7 * n) for n in range(8)]
DROP, RECOVERED = datetime.date(2026, 1, 26), datetime.date(2026, 2, 9)
SECRET_PATH = "/hooks/T0001/B0002/very-secret-token"
ACK_NOTE = "index rebuild running (ana)"

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
    """One tick as the series saw it: its week and run, the alert states after it, the bodies received so far."""

    week: datetime.date
    run_id: str
    alert_states: list
    generic_bodies: int
    slack_bodies: int


@dataclass(frozen=True)
class MonitoringSeries:
    """The warehouse after the eight ticks (``home``), its config's folder (``folder``), the
    receivers (generic, slack, broken), each tick, the first tick's rows read right after it, and a
    copy of the warehouse after the three weeks before the drop (``before_drop``)."""

    home: Path
    folder: Path
    receivers: tuple[Receiver, Receiver, Receiver]
    ticks: list[Tick]
    first_tick_rows: list
    before_drop: Path


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


@pytest.fixture(scope="session")
def monitoring_series(tmp_path_factory) -> MonitoringSeries:
    """The eight ticks of the monitoring demo, once per session (see the module docstring)."""
    from biaswh.evaluation.monitor import run_tick
    from tests.conftest import copy_warehouse, run_here

    folder = tmp_path_factory.mktemp("monitoring-series")
    home, config = folder / "warehouse", series_config(folder)
    generic, slack, broken = Receiver(), Receiver(), Receiver(status=503)
    ticks, first_rows, before_drop = [], None, None
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TEST_ALERT_WEBHOOK", generic.url)
        patch.setenv("TEST_SLACK_WEBHOOK", slack.url)
        patch.setenv("TEST_BROKEN_WEBHOOK", broken.url)
        patch.delenv("TEST_UNSET_WEBHOOK", raising=False)
        for week in WEEKS:
            if week == DROP:
                before_drop = copy_warehouse(home, folder / "before-drop")
            run_id = run_tick(config, week, home=home)
            with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
                state = con.execute("select alert_id, state from evaluation_alert_state").fetchall()
                if week == WEEKS[0]:
                    first_rows = first_tick_rows(con, run_id)
            ticks.append(Tick(week, run_id, state, len(generic.bodies), len(slack.bodies)))
            if week == DROP:  # acknowledged by a person after the alert arrived
                ((alert_id, _),) = state
                run_here("alerts", "ack", alert_id, "--note", ACK_NOTE, home=home)
    for receiver in (generic, slack, broken):
        receiver.server.shutdown()
        receiver.server.server_close()
    return MonitoringSeries(home, folder, (generic, slack, broken), ticks, first_rows, before_drop)
