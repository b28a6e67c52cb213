import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time

import pytest

from biaswh.ingest.retrieval.squad import load_squad
from biaswh.warehouse.database.connection import connect, open_warehouse
from biaswh.warehouse.errors import WarehouseBusyError
from biaswh.warehouse.runs.processes import process_alive
from biaswh.warehouse.runs.registry import file_sha256, mark_interrupted_runs, package_versions, start_run
from biaswh.warehouse.settings.home import HOME_VARIABLE
from tests.conftest import DEMO_DATA, REPOSITORY_ROOT


def test_every_raw_row_and_run_is_traceable(con):
    source = DEMO_DATA / "squad_demo.json"
    result = load_squad(con, str(source))
    sha = file_sha256(source)
    assert con.execute("select distinct run_id, source_sha256 from raw.squad_questions").fetchall() == [
        (result.run_id, sha)
    ]
    run = con.execute(
        "select kind, status, parameters, code_version, package_versions, started_at <= finished_at,"
        " row_counts from raw.runs where run_id = ?",
        [result.run_id],
    ).fetchone()
    kind, status, parameters, code_version, packages, ordered, counts = run
    assert (kind, status, ordered) == ("ingest_squad", "succeeded", True)
    assert json.loads(parameters)["split"] == "train"
    assert code_version and code_version != "unknown"
    assert json.loads(packages)["duckdb"] == package_versions()["duckdb"]
    assert json.loads(counts) == {"squad": 64}
    assert con.execute("select source_path, source_sha256, size_bytes from raw.run_sources").fetchall() == [
        (str(source), sha, source.stat().st_size)
    ]


def test_a_study_run_records_the_engines_it_used_and_their_package_versions(con):
    from importlib import metadata

    from biaswh.compute.common.engine import with_compute
    from biaswh.plugins import load_plugins
    from biaswh.study_builds import run_record
    from biaswh.warehouse.runs.study import load_study

    load_plugins()
    study = load_study(REPOSITORY_ROOT / "studies" / "demo.toml")
    plain, plain_engines = run_record(study)
    spark, spark_engines = run_record(study, target="spark")
    _, ray_engines = run_record(with_compute(study, engine="ray"), target="spark")
    assert "build_target" not in plain and plain_engines == ()
    assert spark == {**plain, "build_target": "spark"} and spark_engines == ("spark",)
    assert ray_engines == ("ray", "spark")
    run_id = start_run(con, kind="study", name="demo", parameters=spark, engines=spark_engines).run_id
    parameters, packages = con.execute(
        "select parameters, package_versions from raw.runs where run_id = ?", [run_id]
    ).fetchone()
    assert json.loads(parameters)["build_target"] == "spark"
    recorded = json.loads(packages)
    for package in ("pyspark", "dbt-spark"):
        try:
            assert recorded[package] == metadata.version(package)
        except metadata.PackageNotFoundError:
            assert recorded[package] == "not installed"
    assert "pyspark" not in package_versions() and recorded["duckdb"] == package_versions()["duckdb"]


def test_sha256_matches_hashlib(tmp_path):
    import hashlib

    path = tmp_path / "x.bin"
    path.write_bytes(b"abc" * 1_000_000)
    assert file_sha256(path) == hashlib.sha256(b"abc" * 1_000_000).hexdigest()


def _start_run_then_sleep(home, *, keep_open: bool) -> subprocess.Popen:
    """A biaswh-like process: it opens the warehouse, starts a run, says so, and sleeps."""
    code = textwrap.dedent(f"""
        from biaswh.warehouse.database.connection import connect
        from biaswh.warehouse.runs.registry import start_run
        con = connect()
        run_id = start_run(con, kind="study", name="doomed", parameters={{}}).run_id
        if not {keep_open}:
            con.close()
        print(run_id, flush=True)
        import time; time.sleep(600)
    """)
    return subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPOSITORY_ROOT,
        env={**os.environ, HOME_VARIABLE: str(home)},
    )


def _status(run_id):
    with open_warehouse() as con:
        return con.execute(
            "select status, pid, host, message, finished_at is not null from raw.runs where run_id = ?", [run_id]
        ).fetchone()


@pytest.mark.parametrize("keep_open", [True, False], ids=["holding the lock", "between connections"])
def test_a_run_whose_process_is_killed_becomes_interrupted_at_the_next_open(warehouse_home, keep_open):
    child = _start_run_then_sleep(warehouse_home, keep_open=keep_open)
    try:
        run_id = child.stdout.readline().strip()
        assert run_id
        if not keep_open:  # a live owner keeps its run running
            assert _status(run_id)[:3] == ("running", child.pid, socket.gethostname())
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        child.stdout.close()
    status, pid, host, message, finished = _status(run_id)
    assert (status, pid, host, finished) == ("interrupted", child.pid, socket.gethostname(), True)
    assert message == f"interrupted: process {child.pid} on {host} ended without finishing the run"


def test_runs_of_this_process_and_of_other_hosts_stay_running(con):
    mine = start_run(con, kind="study", name="mine", parameters={}).run_id
    elsewhere = start_run(con, kind="study", name="elsewhere", parameters={}).run_id
    con.execute("update raw.runs set host = 'another-host', pid = 999999999 where run_id = ?", [elsewhere])
    assert mark_interrupted_runs(con) == []
    assert con.execute("select count(*) from raw.runs where status = 'running'").fetchone()[0] == 2
    assert mine != elsewhere


def test_the_busy_message_names_the_process_holding_the_lock(warehouse_home):
    connect().close()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, duckdb; con = duckdb.connect(sys.argv[1]); print('locked', flush=True); sys.stdin.readline()",
            str(warehouse_home / "warehouse.duckdb"),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(WarehouseBusyError, match=rf"warehouse is busy: process {holder.pid} is using "):
            connect(read_only=True)
    finally:
        holder.communicate("\n", timeout=30)


def test_the_dbt_child_dies_with_a_killed_biaswh(warehouse_home, tmp_path):
    """The subprocess fallback (BIASWH_DBT_SUBPROCESS=1); in-process dbt dies with biaswh by itself."""
    pid_file = tmp_path / "dbt.pid"
    fake_dbt = tmp_path / "dbt"
    fake_dbt.write_text(f"#!/bin/sh\necho $$ > {pid_file}\nexec sleep 600\n", encoding="utf-8")
    fake_dbt.chmod(0o755)
    code = (
        "from biaswh.warehouse.dbt_build import runner as dbt_runner; from biaswh import pipeline;"
        f" dbt_runner.dbt_executable = lambda: {str(fake_dbt)!r};"
        " pipeline.dbt_build()"
    )
    biaswh = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=REPOSITORY_ROOT,
        env={**os.environ, HOME_VARIABLE: str(warehouse_home), "BIASWH_DBT_SUBPROCESS": "1"},
    )
    try:
        deadline = time.monotonic() + 60
        while not (pid_file.exists() and pid_file.read_text().strip()):
            assert time.monotonic() < deadline and biaswh.poll() is None
            time.sleep(0.05)
        dbt_pid = int(pid_file.read_text())
        assert process_alive(dbt_pid)
    finally:
        biaswh.send_signal(signal.SIGKILL)
        biaswh.wait(timeout=30)
    deadline = time.monotonic() + 10
    while process_alive(dbt_pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not process_alive(dbt_pid)


def test_a_full_disk_during_an_ingest_rolls_it_back_and_ends_in_one_line(warehouse_home, monkeypatch, capsys):
    """An OSError (ENOSPC) after the raw rows are written: nothing stays, the CLI says so in one line."""
    import errno

    import biaswh.ingest.common.versions
    from biaswh.cli import main
    from tests.fingerprints import raw_fingerprint

    connect().close()
    with open_warehouse(read_only=True) as con:
        before = raw_fingerprint(con)
    real = biaswh.ingest.common.versions.ingest_version

    def full_disk(*args, write_rows, **kwargs):
        def write_then_fail(run, version):
            write_rows(run, version)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(warehouse_home / "warehouse.duckdb.wal"))

        return real(*args, write_rows=write_then_fail, **kwargs)

    monkeypatch.setattr(biaswh.ingest.common.versions, "ingest_version", full_disk)
    assert main(["ingest", "squad", str(DEMO_DATA / "squad_demo.json")]) == 1
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and os.strerror(errno.ENOSPC) in error and "rolled back" in error
    with open_warehouse(read_only=True) as con:
        assert raw_fingerprint(con) == before
