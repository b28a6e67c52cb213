"""The run registry's rows and rules, read back from ``raw.runs`` (``warehouse/runs/registry.py``).

A run's row says what ran, with what, where and how it ended; the commands that read a study's
results pick its latest *succeeded* run and refuse another study's run by name.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from datetime import datetime, timedelta, timezone
from importlib import metadata
from types import SimpleNamespace

import duckdb
import pytest

from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs import registry as runs
from biaswh.warehouse.runs.registry import (
    check_study_run,
    code_version,
    latest_succeeded_study_run,
    package_versions,
    start_run,
)
from biaswh.warehouse.settings.home import REPOSITORY_ROOT

T0 = datetime(2026, 1, 1, 12, 0, 0)
STUDY = SimpleNamespace(name="s", path="studies/s.toml")


def _row(con, run_id: str) -> dict:
    cursor = con.execute("select * from raw.runs where run_id = ?", [run_id])
    names = [column[0] for column in cursor.description]
    return dict(zip(names, cursor.fetchone()))


def _add(con, run_id: str, *, status: str, hour: int, kind: str = "study", name: str = "s", finished: bool = True):
    started = T0 + timedelta(hours=hour)
    con.execute(
        "insert into raw.runs (run_id, kind, name, status, started_at, finished_at) values (?, ?, ?, ?, ?, ?)",
        [run_id, kind, name, status, started, started + timedelta(minutes=5) if finished else None],
    )


def test_a_run_records_what_ran_with_what_and_where_then_how_it_ended(con):
    run = start_run(con, kind="ingest_pairs", name="pairs", parameters={"b": 2, "a": [1]})
    row = _row(con, run.run_id)
    assert (row["kind"], row["name"], row["status"], row["finished_at"]) == ("ingest_pairs", "pairs", "running", None)
    assert row["parameters"] == '{"a": [1], "b": 2}'  # sorted keys: the same parameters, the same text
    assert (row["pid"], row["host"]) == (os.getpid(), socket.gethostname())
    assert row["code_version"] == code_version()
    assert row["package_versions"] == json.dumps(package_versions(), sort_keys=True)
    run.row_counts.update(pairs=3, extra=1)
    run.finish("loaded 3 pairs")
    row = _row(con, run.run_id)
    assert (row["status"], row["message"], row["row_counts"]) == (
        "succeeded",
        "loaded 3 pairs",
        '{"extra": 1, "pairs": 3}',
    )
    assert row["started_at"] <= row["finished_at"]


def test_a_failed_run_keeps_its_reason_and_a_missing_source_has_no_size(con, tmp_path):
    run = start_run(con, kind="study", name="s", parameters={})
    present = tmp_path / "present.csv"
    present.write_text("abc\n", encoding="utf-8")
    run.add_source(present, "sha-1")
    run.add_source(tmp_path / "gone.csv", "sha-2")
    run.fail("dbt build failed")
    row = _row(con, run.run_id)
    assert (row["status"], row["message"]) == ("failed", "dbt build failed") and row["finished_at"] is not None
    assert con.execute(
        "select source_path, source_sha256, size_bytes from raw.run_sources where run_id = ? order by 2", [run.run_id]
    ).fetchall() == [(str(present), "sha-1", 4), (str(tmp_path / "gone.csv"), "sha-2", None)]


def _git(*args: str) -> str:
    return subprocess.check_output(["git", *args], cwd=REPOSITORY_ROOT, text=True).strip()


def _code_changes() -> str:
    return _git("status", "--porcelain", "--untracked-files=no", "--", ".", *runs.OUTPUT_PATHSPECS)


def test_the_code_version_is_the_checkouts_commit():
    head, dirty = _git("rev-parse", "HEAD"), _code_changes()
    assert code_version() == (f"{head}-dirty" if dirty else head)


def test_without_git_the_code_version_is_the_package_version(monkeypatch):
    def no_git(*args, **kwargs):
        raise FileNotFoundError("git")

    monkeypatch.setattr(runs.subprocess, "run", no_git)
    assert code_version() == f"bias-warehouse {metadata.version('bias-warehouse')}"


def test_the_code_version_is_read_from_the_checkout_wherever_the_command_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # not a git checkout: git must still ask the project's
    head, dirty = _git("rev-parse", "HEAD"), _code_changes()
    assert code_version() == (f"{head}-dirty" if dirty else head)


def test_a_clean_checkout_is_its_commit_and_a_changed_tracked_file_makes_it_dirty(tmp_path, monkeypatch):
    def git(*args: str) -> str:
        command = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t", *args]
        return subprocess.run(command, check=True, capture_output=True, text=True).stdout.strip()

    git("init", "-q")
    (tmp_path / "code.py").write_text("x = 1\n", encoding="utf-8")
    git("add", "code.py")
    git("commit", "-q", "-m", "first")
    monkeypatch.setattr(runs, "REPOSITORY_ROOT", tmp_path)
    head = git("rev-parse", "HEAD")
    (tmp_path / "notes.txt").write_text("untracked", encoding="utf-8")
    assert code_version() == head  # an untracked file leaves the code as committed
    results = tmp_path / "benchmarks" / "results" / "bench.json"
    results.parent.mkdir(parents=True)
    results.write_text("{}", encoding="utf-8")
    git("add", "benchmarks")
    git("commit", "-q", "-m", "results")
    head = git("rev-parse", "HEAD")
    results.write_text('{"seconds": 1}', encoding="utf-8")
    assert code_version() == head  # make bench rewrote a recorded result: the code is the commit's
    (tmp_path / "code.py").write_text("x = 2\n", encoding="utf-8")
    assert code_version() == f"{head}-dirty"


def _checkout_without_a_readable_state(tmp_path, broken: str):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    if broken == "status":  # a commit, then an index git cannot read: HEAD is known, the status is not
        subprocess.run(["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t", "commit",
                        "-q", "--allow-empty", "-m", "first"], check=True)  # fmt: skip
        (tmp_path / ".git" / "index").write_bytes(b"not an index")
    return tmp_path


@pytest.mark.parametrize("broken", ["HEAD", "status"])
def test_a_checkout_whose_commit_or_status_git_cannot_read_gives_the_package_version(broken, tmp_path, monkeypatch):
    """A commit without its status may be dirty code: neither is recorded as the code version."""
    monkeypatch.setattr(runs, "REPOSITORY_ROOT", _checkout_without_a_readable_state(tmp_path, broken))
    assert code_version() == f"bias-warehouse {metadata.version('bias-warehouse')}"


def test_without_git_or_an_installed_package_the_code_version_is_unknown(tmp_path, monkeypatch):
    def not_installed(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(runs, "REPOSITORY_ROOT", tmp_path)  # no checkout here
    monkeypatch.setattr(runs.metadata, "version", not_installed)
    assert code_version() == "unknown"


def test_run_times_are_utc_whatever_the_machines_time_zone(con, monkeypatch):
    monkeypatch.setenv("TZ", "Etc/GMT+5")  # five hours behind UTC
    time.tzset()
    try:
        run = start_run(con, kind="study", name="s", parameters={})
        run.finish()
    finally:
        monkeypatch.undo()
        time.tzset()
    utc_now = datetime.now(timezone.utc).replace(tzinfo=None)
    for recorded in _row(con, run.run_id)["started_at"], _row(con, run.run_id)["finished_at"]:
        assert abs(recorded - utc_now) < timedelta(minutes=10)


def test_a_package_that_is_not_installed_says_so(monkeypatch):
    monkeypatch.setattr(runs, "TRACKED_PACKAGES", ("duckdb", "no-such-package-here"))
    assert package_versions() == {"duckdb": duckdb.__version__, "no-such-package-here": "not installed"}


def test_the_latest_succeeded_run_is_picked_never_a_later_failed_or_running_one(con):
    _add(con, "old", status="succeeded", hour=0)
    _add(con, "newer", status="succeeded", hour=1)
    _add(con, "failed", status="failed", hour=2)
    _add(con, "running", status="running", hour=3, finished=False)
    _add(con, "other-study", status="succeeded", hour=4, name="t")
    _add(con, "an-ingest", status="succeeded", hour=5, kind="ingest_squad")
    assert latest_succeeded_study_run(con, STUDY) == ("newer", T0 + timedelta(hours=1, minutes=5))


@pytest.mark.parametrize(
    ("runs_there", "what"),
    [
        ([], "no run"),
        ([("gone", "failed", 0), ("stopped", "interrupted", 1)], "no succeeded run (its latest, stopped, interrupted)"),
    ],
)
def test_without_a_succeeded_run_the_message_names_the_latest_and_what_to_do(con, runs_there, what):
    for run_id, status, hour in runs_there:
        _add(con, run_id, status=status, hour=hour)
    with pytest.raises(UserError) as refused:
        latest_succeeded_study_run(con, STUDY)
    assert str(refused.value) == f"study 's' has {what} in this warehouse: `biaswh run studies/s.toml` first"


def test_a_run_id_of_another_study_or_kind_is_refused_by_name(con):
    _add(con, "mine", status="succeeded", hour=0)
    _add(con, "theirs", status="succeeded", hour=1, name="t")
    _add(con, "an-ingest", status="succeeded", hour=2, kind="ingest_squad", name="s")
    assert check_study_run(con, STUDY, "mine") is None
    expected = {
        "theirs": "--run theirs: that is a run of study 't', not of study 's'",
        "an-ingest": "--run an-ingest: that is a run of ingest_squad 's', not of study 's'",
        "nothing": "--run nothing: no run with that id in this warehouse (biaswh sql 'select * from dim_runs')",
    }
    for run_id, message in expected.items():
        with pytest.raises(UserError) as refused:
            check_study_run(con, STUDY, run_id)
        assert str(refused.value) == message
