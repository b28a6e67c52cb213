"""One writing command at a time per warehouse, for the command's whole life.

DuckDB's own lock is held only while a connection is open, and a study opens and closes the
warehouse between its stages (dbt needs it in between). Without more, a second ``biaswh run``
or ``biaswh ingest`` could slip into such a gap and interleave its writes with the first run's.
So every writing command holds an advisory lock (``flock``) on ``$BIASWH_HOME/warehouse.lock``
from start to end; the file names the holder. The kernel releases the lock when its process
dies (``kill -9`` included), so a dead holder never blocks anyone.

Once a command has opened the warehouse, its later opens wait (``BIASWH_BUSY_TIMEOUT`` seconds,
default 60) for a reader (``biaswh sql``, a dashboard build) that took DuckDB's lock in between,
instead of failing the study half way. Its first open does not wait: a warehouse that is busy
before a command has done anything is refused at once.
"""

from __future__ import annotations

import os
import socket
import time
from contextlib import contextmanager
from typing import Iterator

from biaswh.warehouse.database.output_files import LOCK_FILE_NAME, open_private_file, refuse_read_only_warehouse
from biaswh.warehouse.errors import UserError, WarehouseBusyError
from biaswh.warehouse.settings.home import warehouse_paths

try:
    import fcntl
except ImportError:  # not POSIX: DuckDB's own lock is all there is
    fcntl = None

TIMEOUT_VARIABLE = "BIASWH_BUSY_TIMEOUT"
DEFAULT_TIMEOUT_SECONDS = 60.0

_depth = 0  # re-entrant within a process: run_study's dbt build is a writing command too
_opened = False  # whether the command holding the lock has opened the warehouse yet


def may_wait() -> bool:
    """Whether opening the warehouse should wait for another holder: this process holds the
    command lock and has opened the warehouse before (so a wait cannot hide a busy start)."""
    return _depth > 0 and _opened


def note_opened() -> None:
    """Record that the command holding the lock opened the warehouse (later opens may wait)."""
    global _opened
    _opened = _depth > 0


def held() -> bool:
    """Whether this process holds the command lock."""
    return _depth > 0


def busy_timeout() -> float:
    """Seconds a command holding the lock waits for a reader to release the warehouse."""
    text = os.environ.get(TIMEOUT_VARIABLE)
    if not text:
        return DEFAULT_TIMEOUT_SECONDS
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:
        raise UserError(f"{TIMEOUT_VARIABLE} must be a number of seconds (0 or more), got {text!r}")
    return seconds


@contextmanager
def exclusive_command(description: str) -> Iterator[None]:
    """Hold the warehouse's command lock while the block runs; refuse at once when another process holds it.

    Raises
    ------
    OutputRefused
        When the warehouse is read-only, or its lock file is a link (:mod:`biaswh.warehouse.database.output_files`).
    WarehouseBusyError
        Naming the holder's process id and command, e.g. ``warehouse is busy: held by process
        4242 (biaswh run studies/demo.toml since 2026-11-22 17:30:01 UTC)``.
    """
    global _depth, _opened
    if _depth or fcntl is None:
        outermost = _depth == 0
        _depth += 1
        _opened = _opened and not outermost
        try:
            yield
        finally:
            _depth -= 1
            _opened = _opened and not outermost
        return
    paths = warehouse_paths()
    refuse_read_only_warehouse(paths)  # before the lock: writing commands refuse, reading ones work
    paths.home.mkdir(parents=True, exist_ok=True)
    # Truncated and rewritten in place: never through a link (to the warehouse, say).
    handle = open_private_file(paths.home / LOCK_FILE_NAME, what="the command lock")
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process (starting)"
            raise WarehouseBusyError(
                f"warehouse is busy: held by {holder}; wait for it to finish and try again"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(
            f"process {os.getpid()} on {socket.gethostname()} ({description} since "
            f"{time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} UTC)\n"
        )
        handle.flush()
        _depth, _opened = _depth + 1, False
        try:
            yield
        finally:
            _depth, _opened = _depth - 1, False
            handle.seek(0)
            handle.truncate()
            fcntl.flock(handle, fcntl.LOCK_UN)
    finally:
        handle.close()
