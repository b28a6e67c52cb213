"""The process harness of the fault tests: start ``biaswh`` at a fault point, wait for its line,
kill it (and its dbt children), hold the warehouse with a reader, and read back the state a
fault left (runs, versions, rows) to check it is consistent."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from biaswh.warehouse.database.connection import connect
from biaswh.warehouse.errors import WarehouseBusyError
from biaswh.warehouse.runs.processes import process_alive
from biaswh.warehouse.settings.home import HOME_VARIABLE
from tests.conftest import REPOSITORY_ROOT
from tests.coverage_site.sitecustomize import COVERAGE_VARIABLES
from tests.fingerprints import raw_fingerprint


def process_env(home: Path, **extra: str) -> dict:
    return {**os.environ, HOME_VARIABLE: str(home), "PYTHONUNBUFFERED": "1", **extra}


STARTED: list[subprocess.Popen] = []  # every process the faults fixture started, ended when it is done


def start(home: Path, point: str, *args: str, **env: str) -> subprocess.Popen:
    """``biaswh`` stopping at a fault point, for the test to kill: unmeasured by coverage, which
    a SIGKILL never lets write what it measured (it would only slow the run down)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.warehouse.fault_driver", point, "--", *args],
        cwd=REPOSITORY_ROOT,
        env={name: value for name, value in process_env(home, **env).items() if name not in COVERAGE_VARIABLES},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    STARTED.append(process)
    return process


def biaswh(home: Path, *args: str, timeout: float = 300, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "biaswh.cli", *args],
        cwd=REPOSITORY_ROOT,
        env=process_env(home, **env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def wait_for_line(process: subprocess.Popen, pattern: str, seen: list[str], timeout: float = 120) -> str:
    """Read the process's output until a line matches; fail with what it printed if it ends first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            pytest.fail(f"process ended ({process.wait()}) before {pattern!r}:\n" + "".join(seen[-40:]))
        seen.append(line)
        if re.search(pattern, line):
            return line
    pytest.fail(f"no {pattern!r} within {timeout} s:\n" + "".join(seen[-40:]))


def child_processes(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rpartition(")")[2].split()[1]) == pid:
                    found.append(int(entry.name))
            except (OSError, ValueError, IndexError):
                continue
    return found


def start_reader(home: Path, *, seconds: float) -> subprocess.Popen:
    """Another process holding a read-only connection to the warehouse for ``seconds``."""
    reader = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time; "
            "con = duckdb.connect(sys.argv[1], read_only=True); print('ready', flush=True); "
            f"time.sleep({seconds})",
            str(home / "warehouse.duckdb"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    STARTED.append(reader)
    assert reader.stdout.readline().strip() == "ready"
    return reader


def kill(process: subprocess.Popen) -> str:
    """SIGKILL the process and return the rest of its output; its dbt child (if any) must die with it."""
    children = child_processes(process.pid)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    rest = process.stdout.read()
    process.stdout.close()
    deadline = time.monotonic() + 30
    while any(process_alive(c) for c in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(process_alive(c) for c in children), f"children {children} outlived their killed parent"
    return rest


def dbt_log(home: Path) -> Path:
    return home / "dbt" / "logs" / "dbt-build.log"


def log_size(home: Path) -> int:
    return dbt_log(home).stat().st_size if dbt_log(home).exists() else 0


def wait_for_dbt_progress(home: Path, since: int, nodes: int = 3, timeout: float = 120) -> None:
    """Wait until a dbt build started after log offset ``since`` has finished ``nodes`` nodes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = ""
        if dbt_log(home).exists():
            with open(dbt_log(home), "rb") as handle:
                handle.seek(since)
                text = handle.read().decode("utf-8", errors="replace")
        if "=== " in text and len(re.findall(r" (OK|PASS) ", text.rpartition("=== ")[2])) >= nodes:
            return
        time.sleep(0.1)
    pytest.fail(f"dbt build showed no progress in {timeout} s")


def warehouse_state(home: Path) -> dict:
    """Open the warehouse for writing (which marks dead runs), then read what the checks need.

    A killed dbt lets go of the file once the kernel has torn it down, which can lag its
    parent's end by a moment: a few seconds of "busy" are waited out, no more.
    """
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(HOME_VARIABLE, str(home))
        deadline = time.monotonic() + 5
        while True:
            try:
                con = connect()
                break
            except WarehouseBusyError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
    try:
        runs = con.execute("select run_id, kind, status, message from raw.runs order by started_at").fetchall()
        tables = [
            r[0]
            for r in con.execute(
                "select table_name from information_schema.columns where table_schema = 'raw'"
                " and column_name = 'run_id' and table_name not in ('runs', 'run_parameters', 'run_inputs')"
            ).fetchall()
        ]
        rows_by_run: dict[str, dict[str, int]] = {}
        for table in tables:
            for run_id, n in con.execute(f"select run_id, count(*) from raw.{table} group by run_id").fetchall():
                rows_by_run.setdefault(run_id, {})[table] = n
        versions = con.execute(
            "select v.dataset, v.source_name, v.version, v.n_rows, r.status from"
            " raw.source_versions v left join raw.runs r using (run_id)"
        ).fetchall()
        return {"runs": runs, "rows_by_run": rows_by_run, "versions": versions, "fingerprint": raw_fingerprint(con)}
    finally:
        con.close()


def assert_consistent(state: dict) -> None:
    statuses = {run_id: (kind, status) for run_id, kind, status, _ in state["runs"]}
    assert all(status in ("succeeded", "failed", "interrupted") for _, status in statuses.values()), state["runs"]
    for run_id, tables in state["rows_by_run"].items():
        kind, status = statuses.get(run_id, (None, None))
        assert kind is not None, f"raw rows of an unknown run {run_id}: {tables}"
        if kind.startswith("ingest_"):
            assert status == "succeeded", f"rows of a {status} ingest: {tables}"
    for dataset, name, version, _n_rows, status in state["versions"]:
        assert status == "succeeded", f"{dataset} {name} v{version} belongs to a {status} run"


def study_runs(state: dict) -> list[tuple[str, str, str]]:
    return [(run_id, status, message) for run_id, kind, status, message in state["runs"] if kind == "study"]
