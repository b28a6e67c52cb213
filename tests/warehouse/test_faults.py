"""Fault injection on the demo study: kill -9 at each stage, a second run, a reader, a full disk.

One warehouse goes through the faults in order (each later run also proves that the warehouse
the previous fault left behind works), then a last plain run must succeed. After every fault
the warehouse opens for writing, no run is left ``running``, no failed or interrupted ingest
left rows, and an interrupted job left no output (each ingest and each job is one transaction).

The processes are real: ``tests/warehouse/fault_driver.py`` runs ``biaswh`` with a fault point
that announces itself on stdout and waits, and the test sends SIGKILL. No test here reads a page:
the runs say ``--no-site`` (the rerun drew the whole site, the others loaded the dashboards' modules).
"""

from __future__ import annotations

import errno
import io
import os
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from biaswh.cli import main
from biaswh.compute.retrieval import steps as retrieval_steps
from biaswh.run_outcome import SITE_NOT_REDRAWN
from biaswh.warehouse.settings.home import HOME_VARIABLE
from tests.conftest import DEMO_STUDY, run_here
from tests.warehouse.fault_harness import (
    STARTED,
    assert_consistent,
    biaswh,
    kill,
    log_size,
    start,
    start_reader,
    study_runs,
    wait_for_dbt_progress,
    wait_for_line,
    warehouse_state,
)

pytestmark = pytest.mark.dbt


@pytest.fixture(scope="module")
def faults(tmp_path_factory):
    """Drive one warehouse through every fault; return what was observed after each."""
    try:
        yield _drive_faults(tmp_path_factory)
    finally:  # a failed step must not leave a paused biaswh or a reader behind
        for process in STARTED:
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
    process = start(home, "ingest", "run", demo, "--no-site")
    wait_for_line(process, r"FAULT-POINT ingest", lines)
    kill(process)
    seen["ingest"] = {"state": warehouse_state(home), "pid": process.pid}

    # 2. kill -9 during the sources dbt build (dbt must die with biaswh).
    lines = []
    process = start(home, "none", "run", demo, "--no-site")
    since = log_size(home)
    wait_for_line(process, r"FAULT-POINT dbt build sources started", lines)
    wait_for_dbt_progress(home, since)
    kill(process)
    seen["sources build"] = {"state": warehouse_state(home), "pid": process.pid, "lines": lines}

    # 3. kill -9 inside the retrieval job's transaction.
    lines = []
    process = start(home, "jobs", "run", demo, "--no-site")
    wait_for_line(process, r"FAULT-POINT jobs", lines, timeout=180)
    kill(process)
    seen["jobs"] = {"state": warehouse_state(home), "pid": process.pid}

    # 4. Between two stages (no connection open): a second run must lose at once; a reader that
    #    then holds the warehouse for a moment only delays the first; then kill -9 in the results build.
    lines = []
    release = home.parent / "release"
    process = start(home, "before-results-build", "run", demo, "--no-site", BIASWH_TEST_RELEASE=str(release))
    wait_for_line(process, r"FAULT-POINT before-results-build", lines, timeout=180)
    since = log_size(home)
    second = biaswh(home, "run", demo)
    reader = start_reader(home, seconds=3)
    release.touch()
    wait_for_line(process, r"FAULT-POINT dbt build results started", lines)
    wait_for_dbt_progress(home, since)
    lines.append(kill(process))
    reader.wait(timeout=30)
    reader.stdout.close()
    seen["results build"] = {
        "state": warehouse_state(home),
        "pid": process.pid,
        "second": second,
        "lines": lines,
        "reader_pid": reader.pid,
    }

    # 5. A reader holds the warehouse when a run starts: the run ends at once with "busy".
    before = warehouse_state(home)
    reader = start_reader(home, seconds=600)
    blocked = biaswh(home, "run", demo)
    reader.kill()
    reader.wait()
    reader.stdout.close()
    seen["reader"] = {"blocked": blocked, "reader_pid": reader.pid, "before": before, "state": warehouse_state(home)}

    # 6. A full disk (ENOSPC) in the middle of the retrieval job's writes, in-process.
    seen["full disk"] = _full_disk_run(home, demo)

    # 7. A plain rerun succeeds (in this process: no process boundary is under test here).
    completed = run_here("run", demo, "--no-site", home=home, check=False)
    seen["rerun"] = {"completed": completed, "state": warehouse_state(home)}
    return seen


def _full_disk_run(home: Path, demo: str) -> dict:
    def no_space(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(HOME_VARIABLE, str(home))
        real = retrieval_steps.write_relevant_documents

        def write_then_fail(*args, **kwargs):
            real(*args, **kwargs)  # rows written inside the job's transaction, then the disk is full
            no_space()

        patch.setattr(retrieval_steps, "write_relevant_documents", write_then_fail)
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = main(["run", demo, "--no-site"])
    return {"code": code, "stderr": err.getvalue(), "state": warehouse_state(home)}


def test_kill_during_ingest_leaves_no_partial_version(faults):
    state = faults["ingest"]["state"]
    assert_consistent(state)
    assert [status for _, status, _ in study_runs(state)] == ["interrupted"]
    assert "ended without finishing" in study_runs(state)[0][2]
    assert state["versions"] == []  # the ingest's rows and its version went with its transaction
    assert state["fingerprint"]["squad_questions"][0] == 0


def test_kill_during_the_sources_build_kills_dbt_and_leaves_a_consistent_warehouse(faults):
    state = faults["sources build"]["state"]
    assert_consistent(state)
    assert [status for _, status, _ in study_runs(state)] == ["interrupted", "interrupted"]
    assert sorted((d, n) for d, n, *_ in state["versions"]) == [
        ("query_pairs", "dialect_pairs_demo"),
        ("squad", "demo_train"),
    ]


def test_kill_during_the_jobs_leaves_no_job_output(faults):
    state = faults["jobs"]["state"]
    assert_consistent(state)
    killed = study_runs(state)[-1]
    assert killed[1] == "interrupted"
    assert not {t for t in state["rows_by_run"].get(killed[0], {}) if t.startswith("retrieval_")}


def test_a_second_run_while_one_runs_loses_with_one_busy_line(faults):
    observed = faults["results build"]
    second = observed["second"]
    assert second.returncode == 2, second.stderr
    assert second.stderr.count("\n") == 1 and "Traceback" not in second.stderr
    assert "warehouse is busy" in second.stderr and f"process {observed['pid']}" in second.stderr
    # The loser registered nothing: every study run so far is one of the driver's.
    assert len(study_runs(observed["state"])) == 4


def test_kill_during_the_results_build_after_a_reader_delayed_it(faults):
    observed = faults["results build"]
    output = "".join(observed["lines"])
    assert f"warehouse is busy: process {observed['reader_pid']} is using" in output  # the run waited...
    assert "waiting up to 60 s" in output and "FAULT-POINT dbt build results started" in output  # ...then went on
    state = observed["state"]
    assert_consistent(state)
    assert [status for _, status, _ in study_runs(state)] == ["interrupted"] * 4


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
    assert_consistent(state)
    run_id, status, message = study_runs(state)[-1]
    assert status == "failed" and os.strerror(errno.ENOSPC) in message
    assert not {t for t in state["rows_by_run"].get(run_id, {}) if t.startswith("retrieval_")}


def test_a_rerun_after_every_fault_succeeds(faults):
    completed = faults["rerun"]["completed"]
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
    assert completed.stdout.splitlines()[-1] == SITE_NOT_REDRAWN
    state = faults["rerun"]["state"]
    assert_consistent(state)
    assert study_runs(state)[-1][1] == "succeeded"
    assert [s for _, s, _ in study_runs(state)].count("succeeded") == 1
