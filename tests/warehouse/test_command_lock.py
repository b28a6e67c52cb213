"""The command lock: one writing command per warehouse for its whole life; readers are waited for."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from biaswh.warehouse.database.command_lock import TIMEOUT_VARIABLE, exclusive_command, held
from biaswh.warehouse.database.connection import connect
from biaswh.warehouse.errors import UserError, WarehouseBusyError
from biaswh.warehouse.settings.home import HOME_VARIABLE
from tests.conftest import REPOSITORY_ROOT


def _holder(home, code: str, *, seconds: float = 600) -> subprocess.Popen:
    """A process that runs ``code`` (holding something), prints 'ready', sleeps ``seconds`` and ends."""
    script = textwrap.dedent(code) + f"\nprint('ready', flush=True)\nimport time; time.sleep({seconds})\n"
    process = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPOSITORY_ROOT,
        env={**os.environ, HOME_VARIABLE: str(home)},
    )
    assert process.stdout.readline().strip() == "ready"
    return process


def _stop(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait()
    process.stdout.close()


READ_ONLY = "import duckdb\ncon = duckdb.connect({path!r}, read_only=True)"
HOLD_LOCK = """
from biaswh.warehouse.database.command_lock import exclusive_command
lock = exclusive_command("biaswh run studies/x.toml")
lock.__enter__()
"""


def test_a_second_command_is_refused_naming_the_holder_and_a_killed_holder_releases_it(warehouse_home):
    holder = _holder(warehouse_home, HOLD_LOCK)
    try:
        with pytest.raises(WarehouseBusyError) as busy:
            with exclusive_command("biaswh ingest squad x.json"):
                pass
        assert f"held by process {holder.pid} on " in str(busy.value)
        assert "(biaswh run studies/x.toml since " in str(busy.value)
    finally:
        _stop(holder)
    with exclusive_command("biaswh ingest squad x.json"):  # the kernel released the dead holder's lock
        assert held()
    assert not held()


def test_the_lock_is_reentrant_within_a_process(warehouse_home):
    with exclusive_command("outer"):
        with exclusive_command("inner"):
            assert held()
        assert held()
    assert not held()


def test_a_command_that_opened_the_warehouse_waits_for_a_reader_and_only_then(warehouse_home, monkeypatch):
    connect().close()
    path = str(warehouse_home / "warehouse.duckdb")
    reader = _holder(warehouse_home, READ_ONLY.format(path=path))
    try:
        with pytest.raises(WarehouseBusyError, match=f"process {reader.pid}"):
            connect()  # not inside a command: at once
        with exclusive_command("biaswh ingest"), pytest.raises(WarehouseBusyError, match=f"process {reader.pid}"):
            connect()  # a command's first open: at once (nothing done yet, nothing to protect)
    finally:
        _stop(reader)
    monkeypatch.setenv(TIMEOUT_VARIABLE, "0.5")
    with exclusive_command("biaswh run"):
        connect().close()  # the command's first stage
        reader = _holder(warehouse_home, READ_ONLY.format(path=path))  # a reader slips in between two stages
        try:
            begin = time.monotonic()
            with pytest.raises(WarehouseBusyError, match=f"process {reader.pid}"):
                connect()
            assert time.monotonic() - begin >= 0.5  # waited BIASWH_BUSY_TIMEOUT, then gave up
        finally:
            _stop(reader)
        monkeypatch.setenv(TIMEOUT_VARIABLE, "30")
        late = _holder(warehouse_home, READ_ONLY.format(path=path), seconds=1)  # leaves after a second
        try:
            connect().close()  # waits for it, then opens
        finally:
            _stop(late)


def test_a_bad_timeout_setting_is_refused(monkeypatch):
    from biaswh.warehouse.database.command_lock import busy_timeout

    monkeypatch.setenv(TIMEOUT_VARIABLE, "soon")
    with pytest.raises(UserError, match=f"{TIMEOUT_VARIABLE} must be a number of seconds"):
        busy_timeout()
    monkeypatch.setenv(TIMEOUT_VARIABLE, "2.5")
    assert busy_timeout() == 2.5
