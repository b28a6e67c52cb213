"""A busy warehouse is named as such, with its holder, and a run it stopped ends ``failed`` with that reason.

A reader that holds the file when dbt opens it makes ``dbt build`` fail with DuckDB's lock text:
the error says "warehouse is busy" and names the reader, not "a parse or connection error".
The run cannot be marked failed while the reader holds the file, so the failure waits in a side
file (``pending_failures/``) and the next writer records it, before it would call the run
``interrupted``. A command that starts while the warehouse is busy is refused before it loads
anything.
"""

from __future__ import annotations

import json

import pytest

import biaswh.pipeline
from biaswh.cli import main
from biaswh.warehouse.database.command_lock import TIMEOUT_VARIABLE, exclusive_command
from biaswh.warehouse.database.connection import connect
from biaswh.warehouse.dbt_build.runner import run_dbt_build
from biaswh.warehouse.errors import WarehouseBusyError
from biaswh.warehouse.runs.pending_failures import FOLDER_NAME, record_pending_failure
from biaswh.warehouse.runs.registry import start_run
from tests.conftest import DEMO_STUDY
from tests.warehouse.fault_harness import STARTED, start_reader


@pytest.fixture
def readers():
    """Readers a test starts are ended with it."""
    first = len(STARTED)
    yield
    for process in STARTED[first:]:
        if process.poll() is None:
            process.kill()
            process.wait()
        if process.stdout and not process.stdout.closed:
            process.stdout.close()


def _run_row(run_id: str) -> tuple:
    con = connect(read_only=True)
    try:
        return con.execute("select status, message from raw.runs where run_id = ?", [run_id]).fetchone()
    finally:
        con.close()


@pytest.mark.dbt
def test_a_reader_holding_the_file_through_a_build_fails_the_run_busy_naming_it(warehouse_home, readers, monkeypatch):
    monkeypatch.setenv(TIMEOUT_VARIABLE, "0.5")
    con = connect()
    run_id = start_run(con, kind="study", name="busy", parameters={}).run_id
    con.close()
    reader = None

    def build_while_a_reader_holds_the_file():
        nonlocal reader
        reader = start_reader(warehouse_home, seconds=600)  # took the file after our last open
        run_dbt_build(["--select", "stg_squad__questions"], label="sources")

    with exclusive_command("biaswh run busy.toml"):
        connect().close()  # the command's first open: from here on, opens wait BIASWH_BUSY_TIMEOUT
        with pytest.raises(WarehouseBusyError) as failure:
            biaswh.pipeline._finish_or_fail(run_id, build_while_a_reader_holds_the_file)
    message = str(failure.value)
    assert message.startswith(f"warehouse is busy: process {reader.pid} is using ")
    assert "import duckdb" in message and "so dbt build (sources) could not open it" in message
    assert "parse or connection error" not in message and "\n" not in message
    pending = json.loads((warehouse_home / FOLDER_NAME / f"{run_id}.json").read_text(encoding="utf-8"))
    assert pending["message"] == message  # the status could not be written: it waits beside the file

    reader.kill()
    reader.wait()
    assert _run_row(run_id) == ("running", None)  # a reader does not apply it
    connect().close()  # the next writer does
    assert _run_row(run_id) == ("failed", message)
    assert not list((warehouse_home / FOLDER_NAME).iterdir())


def test_a_pending_failure_wins_over_interrupted_and_a_damaged_one_is_left(warehouse_home):
    con = connect()
    failed = start_run(con, kind="study", name="a", parameters={}).run_id
    damaged = start_run(con, kind="study", name="b", parameters={}).run_id
    # Both runs' processes are gone (a pid no process has), as after a command that ended.
    con.execute("update raw.runs set pid = 999999999 where run_id in (?, ?)", [failed, damaged])
    con.close()
    record_pending_failure(failed, "warehouse is busy: process 7 is using x")
    (warehouse_home / FOLDER_NAME / f"{damaged}.json").write_text("{not json", encoding="utf-8")
    connect().close()
    assert _run_row(failed) == ("failed", "warehouse is busy: process 7 is using x")
    assert _run_row(damaged)[0] == "interrupted"
    assert [p.name for p in (warehouse_home / FOLDER_NAME).iterdir()] == [f"{damaged}.json"]


def test_a_run_started_while_a_reader_holds_the_file_is_refused_before_loading_anything(
    warehouse_home, readers, monkeypatch, capsys
):
    connect().close()
    reader = start_reader(warehouse_home, seconds=600)
    loaded = []
    monkeypatch.setattr(biaswh.pipeline, "load_plugins", lambda: loaded.append(True))
    assert main(["run", str(DEMO_STUDY)]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"biaswh: error: warehouse is busy: process {reader.pid} is using ")
    assert error.count("\n") == 1 and loaded == []
