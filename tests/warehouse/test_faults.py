"""Fault injection on the demo study: kill -9 at each stage, a second run, a reader, a full disk.

One warehouse goes through the faults in order (each later run also proves that the warehouse
the previous fault left behind works), then a last plain run must succeed. After every fault
the warehouse opens for writing, no run is left ``running``, no failed or interrupted ingest
left rows, and an interrupted job left no output (each ingest and each job is one transaction).

The processes are real: ``tests/warehouse/fault_driver.py`` runs ``biaswh`` with a fault point
that announces itself on stdout and waits, and the test sends SIGKILL.
"""

from __future__ import annotations

import errno
import io
import os
import re
import signal
import subprocess
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

import compute.steps.retrieval
from biaswh.cli import main
from tests.conftest import DEMO_STUDY, REPOSITORY_ROOT, raw_fingerprint
from warehouse.connection import connect
from warehouse.errors import WarehouseBusyError
from warehouse.processes import process_alive
from warehouse.settings import HOME_VARIABLE

pytestmark = pytest.mark.dbt


def _env(home: Path, **extra: str) -> dict:
    return {**os.environ, HOME_VARIABLE: str(home), "PYTHONUNBUFFERED": "1", **extra}


_STARTED: list[subprocess.Popen] = []  # every process the faults fixture started, ended when it is done


def _start(home: Path, point: str, *args: str, **env: str) -> subprocess.Popen:
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.warehouse.fault_driver", point, "--", *args],
        cwd=REPOSITORY_ROOT,
        env=_env(home, **env),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    _STARTED.append(process)
    return process


def _biaswh(home: Path, *args: str, timeout: float = 300, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "biaswh.cli", *args],
        cwd=REPOSITORY_ROOT,
        env=_env(home, **env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _wait_for_line(process: subprocess.Popen, pattern: str, seen: list[str], timeout: float = 120) -> str:
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


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rpartition(")")[2].split()[1]) == pid:
                    found.append(int(entry.name))
            except (OSError, ValueError, IndexError):
                continue
    return found


def _reader(home: Path, *, seconds: float) -> subprocess.Popen:
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
    _STARTED.append(reader)
    assert reader.stdout.readline().strip() == "ready"
    return reader


def _kill(process: subprocess.Popen) -> str:
    """SIGKILL the process and return the rest of its output; its dbt child (if any) must die with it."""
    children = _children(process.pid)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    rest = process.stdout.read()
    process.stdout.close()
    deadline = time.monotonic() + 30
    while any(process_alive(c) for c in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(process_alive(c) for c in children), f"children {children} outlived their killed parent"
    return rest


def _dbt_log(home: Path) -> Path:
    return home / "dbt" / "logs" / "dbt-build.log"


def _log_size(home: Path) -> int:
    return _dbt_log(home).stat().st_size if _dbt_log(home).exists() else 0


def _wait_for_dbt_progress(home: Path, since: int, nodes: int = 3, timeout: float = 120) -> None:
    """Wait until a dbt build started after log offset ``since`` has finished ``nodes`` nodes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = ""
        if _dbt_log(home).exists():
            with open(_dbt_log(home), "rb") as handle:
                handle.seek(since)
                text = handle.read().decode("utf-8", errors="replace")
        if "=== " in text and len(re.findall(r" (OK|PASS) ", text.rpartition("=== ")[2])) >= nodes:
            return
        time.sleep(0.1)
    pytest.fail(f"dbt build showed no progress in {timeout} s")


def _state(home: Path) -> dict:
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


def _assert_consistent(state: dict) -> None:
    statuses = {run_id: (kind, status) for run_id, kind, status, _ in state["runs"]}
    assert all(status in ("succeeded", "failed", "interrupted") for _, status in statuses.values()), state["runs"]
    for run_id, tables in state["rows_by_run"].items():
        kind, status = statuses.get(run_id, (None, None))
        assert kind is not None, f"raw rows of an unknown run {run_id}: {tables}"
        if kind.startswith("ingest_"):
            assert status == "succeeded", f"rows of a {status} ingest: {tables}"
    for dataset, name, version, _n_rows, status in state["versions"]:
        assert status == "succeeded", f"{dataset} {name} v{version} belongs to a {status} run"


def _study_runs(state: dict) -> list[tuple[str, str, str]]:
    return [(run_id, status, message) for run_id, kind, status, message in state["runs"] if kind == "study"]


@pytest.fixture(scope="module")
def faults(tmp_path_factory):
    """Drive one warehouse through every fault; return what was observed after each."""
    try:
        yield _drive_faults(tmp_path_factory)
    finally:  # a failed step must not leave a paused biaswh or a reader behind
        for process in _STARTED:
            if process.poll() is None:
                process.kill()
                process.wait()
            if process.stdout and not process.stdout.closed:
                process.stdout.close()


def _drive_faults(tmp_path_factory) -> dict:
    home = tmp_path_factory.mktemp("faults") / "warehouse"
    demo = str(DEMO_STUDY)
    seen: dict[str, dict] = {}

    # 1. kill -9 inside the first ingest's transaction (its rows written, not committed).
    lines: list[str] = []
    process = _start(home, "ingest", "run", demo)
    _wait_for_line(process, r"FAULT-POINT ingest", lines)
    _kill(process)
    seen["ingest"] = {"state": _state(home), "pid": process.pid}

    # 2. kill -9 during the sources dbt build (dbt must die with biaswh).
    lines = []
    process = _start(home, "none", "run", demo)
    since = _log_size(home)
    _wait_for_line(process, r"FAULT-POINT dbt build sources started", lines)
    _wait_for_dbt_progress(home, since)
    _kill(process)
    seen["sources build"] = {"state": _state(home), "pid": process.pid, "lines": lines}

    # 3. kill -9 inside the retrieval job's transaction.
    lines = []
    process = _start(home, "jobs", "run", demo)
    _wait_for_line(process, r"FAULT-POINT jobs", lines, timeout=180)
    _kill(process)
    seen["jobs"] = {"state": _state(home), "pid": process.pid}

    # 4. Between two stages (no connection open): a second run must lose at once; a reader that
    #    then holds the warehouse for a moment only delays the first; then kill -9 in the results build.
    lines = []
    release = home.parent / "release"
    process = _start(home, "before-results-build", "run", demo, BIASWH_TEST_RELEASE=str(release))
    _wait_for_line(process, r"FAULT-POINT before-results-build", lines, timeout=180)
    since = _log_size(home)
    second = _biaswh(home, "run", demo)
    reader = _reader(home, seconds=3)
    release.touch()
    _wait_for_line(process, r"FAULT-POINT dbt build results started", lines)
    _wait_for_dbt_progress(home, since)
    lines.append(_kill(process))
    reader.wait(timeout=30)
    reader.stdout.close()
    seen["results build"] = {
        "state": _state(home),
        "pid": process.pid,
        "second": second,
        "lines": lines,
        "reader_pid": reader.pid,
    }

    # 5. A reader holds the warehouse when a run starts: the run ends at once with "busy".
    before = _state(home)
    reader = _reader(home, seconds=600)
    blocked = _biaswh(home, "run", demo)
    reader.kill()
    reader.wait()
    reader.stdout.close()
    seen["reader"] = {"blocked": blocked, "reader_pid": reader.pid, "before": before, "state": _state(home)}

    # 6. A full disk (ENOSPC) in the middle of the retrieval job's writes, in-process.
    seen["full disk"] = _full_disk_run(home, demo)

    # 7. A plain rerun succeeds.
    seen["rerun"] = {"completed": _biaswh(home, "run", demo), "state": _state(home)}
    return seen


def _full_disk_run(home: Path, demo: str) -> dict:
    def no_space(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(HOME_VARIABLE, str(home))
        real = compute.steps.retrieval.write_relevant_documents

        def write_then_fail(*args, **kwargs):
            real(*args, **kwargs)  # rows written inside the job's transaction, then the disk is full
            no_space()

        patch.setattr(compute.steps.retrieval, "write_relevant_documents", write_then_fail)
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = main(["run", demo])
    return {"code": code, "stderr": err.getvalue(), "state": _state(home)}


def test_kill_during_ingest_leaves_no_partial_version(faults):
    state = faults["ingest"]["state"]
    _assert_consistent(state)
    assert [status for _, status, _ in _study_runs(state)] == ["interrupted"]
    assert "ended without finishing" in _study_runs(state)[0][2]
    assert state["versions"] == []  # the ingest's rows and its version went with its transaction
    assert state["fingerprint"]["squad_questions"][0] == 0


def test_kill_during_the_sources_build_kills_dbt_and_leaves_a_consistent_warehouse(faults):
    state = faults["sources build"]["state"]
    _assert_consistent(state)
    assert [status for _, status, _ in _study_runs(state)] == ["interrupted", "interrupted"]
    assert sorted((d, n) for d, n, *_ in state["versions"]) == [
        ("query_pairs", "dialect_pairs_demo"),
        ("squad", "demo_train"),
    ]


def test_kill_during_the_jobs_leaves_no_job_output(faults):
    state = faults["jobs"]["state"]
    _assert_consistent(state)
    killed = _study_runs(state)[-1]
    assert killed[1] == "interrupted"
    assert not {t for t in state["rows_by_run"].get(killed[0], {}) if t.startswith("retrieval_")}


def test_a_second_run_while_one_runs_loses_with_one_busy_line(faults):
    observed = faults["results build"]
    second = observed["second"]
    assert second.returncode == 2, second.stderr
    assert second.stderr.count("\n") == 1 and "Traceback" not in second.stderr
    assert "warehouse is busy" in second.stderr and f"process {observed['pid']}" in second.stderr
    # The loser registered nothing: every study run so far is one of the driver's.
    assert len(_study_runs(observed["state"])) == 4


def test_kill_during_the_results_build_after_a_reader_delayed_it(faults):
    observed = faults["results build"]
    output = "".join(observed["lines"])
    assert f"warehouse is busy: process {observed['reader_pid']} is using" in output  # the run waited...
    assert "waiting up to 60 s" in output and "FAULT-POINT dbt build results started" in output  # ...then went on
    state = observed["state"]
    _assert_consistent(state)
    assert [status for _, status, _ in _study_runs(state)] == ["interrupted"] * 4


def test_a_reader_holding_the_warehouse_makes_a_run_fail_busy_without_a_trace(faults):
    observed = faults["reader"]
    blocked = observed["blocked"]
    assert blocked.returncode == 2, blocked.stdout + blocked.stderr
    assert blocked.stderr.count("\n") == 1 and "Traceback" not in blocked.stderr
    assert "warehouse is busy" in blocked.stderr and f"process {observed['reader_pid']}" in blocked.stderr
    assert observed["state"]["fingerprint"] == observed["before"]["fingerprint"]


def test_a_full_disk_fails_the_run_in_one_line_and_rolls_back_the_job(faults):
    observed = faults["full disk"]
    assert observed["code"] == 1
    assert observed["stderr"].count("\n") == 1 and os.strerror(errno.ENOSPC) in observed["stderr"]
    state = observed["state"]
    _assert_consistent(state)
    run_id, status, message = _study_runs(state)[-1]
    assert status == "failed" and os.strerror(errno.ENOSPC) in message
    assert not {t for t in state["rows_by_run"].get(run_id, {}) if t.startswith("retrieval_")}


def test_a_rerun_after_every_fault_succeeds(faults):
    completed = faults["rerun"]["completed"]
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
    state = faults["rerun"]["state"]
    _assert_consistent(state)
    assert _study_runs(state)[-1][1] == "succeeded"
    assert [s for _, s, _ in _study_runs(state)].count("succeeded") == 1
