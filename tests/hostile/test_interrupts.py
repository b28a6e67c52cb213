"""Hostile timing: Ctrl-C while `biaswh sql` runs a long query.

The real command in a subprocess, started as a terminal starts it (SIGINT at the kernel's
default), is sent SIGINT once its query runs: it ends within seconds, exit code 130, one line on
stderr and no traceback (it was "RuntimeError: Query interrupted" and exit 1; and before that the
connection's close waited for the stopped query to finish), the warehouse file unchanged.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time

from biaswh.warehouse.settings.home import HOME_VARIABLE
from tests.conftest import REPOSITORY_ROOT, copy_warehouse

# About 10^12 rows to sum: hours, unless stopped.
ENDLESS = "select sum(a.range * b.range + hash(a.range)) from range(1000000) a, range(1000000) b"


def _sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _wait_for(predicate, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def test_ctrl_c_during_a_query_exits_130_in_one_line(demo_warehouse, tmp_path):
    home = copy_warehouse(demo_warehouse.home, tmp_path / "warehouse")
    before = _sha256(home / "warehouse.duckdb")
    child = subprocess.Popen(
        [sys.executable, "-m", "biaswh.cli", "sql", ENDLESS],
        env={**os.environ, HOME_VARIABLE: str(home)},
        cwd=REPOSITORY_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as from a terminal
    )
    try:
        # The sandbox's private folder exists from its connection's opening to its closing.
        assert _wait_for(lambda: any(home.glob(".sandbox-*")), 60), "the query never started"
        time.sleep(1.0)  # well inside the query
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        stdout, stderr = child.communicate(timeout=30)
    finally:
        child.kill()
    assert time.monotonic() - sent < 15
    assert child.returncode == 130, stderr
    assert stderr.count("\n") == 1 and "Traceback" not in stderr and "interrupted" in stderr, stderr
    assert stdout == ""
    assert _sha256(home / "warehouse.duckdb") == before
