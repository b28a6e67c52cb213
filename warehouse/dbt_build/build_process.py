"""A study run's dbt builds in a child process that loads dbt while the run does its own work.

Before its first build can start, dbt costs a process 2-3 s of Python: importing dbt and its
adapter, loading the kept parsed project (:func:`~biaswh.warehouse.dbt_build.invoke.load_dbt`).
Done in a thread of the run's own process (:mod:`~biaswh.warehouse.dbt_build.warm_start`), it
overlaps almost nothing: both threads hold Python's lock (the GIL) for most of their work, and
the run's ingest and jobs slowed by as much as the build gained (measured on the warm real
dialect study, three alternating pairs at load 10-23: jobs 10.1-12.8 s with the thread against
5.3-8.4 s without, the results build 8.9-9.3 s against 11.0-15.4 s). A child process does the
same on the machine's other core, and then runs the run's builds through the same invoker
(:func:`~biaswh.warehouse.dbt_build.invoke.invoke_dbt`): one child per ``biaswh`` process, kept
for its later studies, dying with it.

The child reads the warehouse file only during a build, when the run holds no connection to
it (as for dbt in this process). Each request carries this process's environment and working
directory, so the child builds the warehouse ``BIASWH_HOME`` names at the call. The build's
node counter gets the events it counts; everything else a build returns (results, the failed
nodes as the manifest has them) comes back when it ends. A child that cannot start, or dies
before a request, leaves the builds to this process.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import subprocess
import sys
import threading
import warnings
from contextlib import contextmanager, suppress
from multiprocessing.connection import Connection
from pathlib import Path
from types import SimpleNamespace
from typing import Callable, Iterator, Sequence

from biaswh.warehouse.runs.processes import DIE_WITH_PARENT

# The events a build's callbacks get from the child (what the node counter reads).
FORWARDED_EVENTS = ("LogStartLine", "NodeFinished")
# A tag no node carries: the warm-up build selects nothing.
WARM_UP_SELECTION = "tag:biaswh_warm_up_selects_nothing"
_CHILD_CODE = (
    "import json, sys; sys.path[:] = json.loads(sys.argv[1]);"
    " from biaswh.warehouse.dbt_build.build_child import serve; serve(int(sys.argv[2]), int(sys.argv[3]))"
)


class _Child:
    """The running child: its process and the two ends this process holds."""

    def __init__(self) -> None:
        child_reads, parent_writes = os.pipe()
        parent_reads, child_writes = os.pipe()
        with warnings.catch_warnings():
            # preexec_fn means fork: lancedb warns about forks, but the child only execs Python.
            warnings.filterwarnings("ignore", message="lancedb fork support")
            self.process = subprocess.Popen(
                [sys.executable, "-c", _CHILD_CODE, json.dumps(sys.path), str(child_reads), str(child_writes)],
                pass_fds=(child_reads, child_writes),
                stdin=subprocess.DEVNULL,
                preexec_fn=DIE_WITH_PARENT,
            )
        os.close(child_reads)
        os.close(child_writes)
        self.requests = Connection(parent_writes, readable=False)
        self.replies = Connection(parent_reads, writable=False)
        self.ready = False
        self.released = False  # told it may write (its warm-up build): see release()

    def release(self) -> None:
        """Let the child go past loading dbt (which only reads) to its warm-up build, which writes
        into the warehouse's dbt folder: sent once the run holds the warehouse's command lock."""
        if not self.released:
            self.requests.send("go")
            self.released = True

    def stop(self) -> None:
        """Close its ends: an idle child returns at once (waited for up to a second); one still
        loading dbt (a run refused by its config checks, an exit before the first build) is
        killed at once, since it holds nothing yet."""
        for end in (self.requests, self.replies):
            end.close()
        try:
            self.process.wait(timeout=1 if self.ready else 0)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


_CHILD: list[_Child] = []
# dbt as a plain child process per build instead (a fallback; slower by dbt's start-up and parse):
# no study-run child then.
SUBPROCESS_VARIABLE = "BIASWH_DBT_SUBPROCESS"

_LOCK = threading.Lock()
_SCOPES = [0]  # open serving() blocks


@contextmanager
def serving() -> Iterator[None]:
    """A block whose study builds may go to a child (:func:`start`); builds outside one (``biaswh
    build``, tests) stay in this process. The child outlives the block, idle, for the process's
    later study runs (a notebook's, a scheduler's, a test worker's): a new child per run would load
    dbt again each time (a demo run in a long-lived process took 8.8 s of CPU and 17 s against
    5.5 s and 6 s in this process). It ends when this process does (:func:`stop` at exit)."""
    _SCOPES[0] += 1
    try:
        yield
    finally:
        _SCOPES[0] -= 1


def prestart() -> None:
    """Start the child before ``biaswh run`` parses its command line and takes the warehouse's
    command lock (0.2-0.3 s earlier): it imports dbt and loads the kept parsed project, which
    only reads, then waits for :func:`start` to release it. Not with ``BIASWH_DBT_SUBPROCESS=1``;
    a child never released (a refused run, a Spark build) is killed at exit, holding nothing."""
    with _LOCK:
        if os.environ.get(SUBPROCESS_VARIABLE) == "1" or (_CHILD and _CHILD[0].process.poll() is None):
            return
        _CHILD.clear()
        with suppress(OSError):
            _CHILD.append(_Child())


def start() -> bool:
    """Start the dbt child inside a :func:`serving` block (once; a running one is kept, one
    :func:`prestart` started is released); False outside one, with ``BIASWH_DBT_SUBPROCESS=1``,
    or when it cannot start."""
    with _LOCK:
        if not _SCOPES[0] or os.environ.get(SUBPROCESS_VARIABLE) == "1":
            return False
        if not (_CHILD and _CHILD[0].process.poll() is None):
            _CHILD.clear()
            try:
                _CHILD.append(_Child())
            except OSError:
                return False
        try:
            _CHILD[0].release()
        except OSError:
            _CHILD.pop().stop()
            return False
    return True


def stop() -> None:
    """End the child (its input closed, it returns; this process's exit does the same)."""
    with _LOCK:
        if _CHILD:
            _CHILD.pop().stop()


atexit.register(stop)


def build(
    args: Sequence[str], *, env: dict[str, str], log_file: Path, console: bool, callbacks: Sequence[Callable] = ()
) -> tuple[bool, list, str, dict] | None:
    """``invoke_dbt(["build", *args])`` in the child: (success, (unique_id, status, message) rows,
    the error's text, the failed nodes); None when no child is running (the caller builds).

    Raises KeyboardInterrupt when the build was interrupted (the child is then ended).
    """
    request = {"args": ["build", *args], "env": env, "log_file": str(log_file), "console": console}
    return _call(request, callbacks)


def listing(args: Sequence[str]) -> tuple[bool, list[str]] | None:
    """``invoke_dbt(["ls", *args])`` in the child: (success, the lines listed); None when no
    child is running (the caller lists)."""
    answer = _call({"args": ["ls", *args], "env": None, "log_file": None, "console": False}, ())
    return None if answer is None else (answer[0], answer[1])


def _call(request: dict, callbacks: Sequence[Callable]) -> tuple[bool, list, str, dict] | None:
    with _LOCK:
        child = _CHILD[0] if _CHILD and _SCOPES[0] and _CHILD[0].released else None
        if child is None or not _await_ready(child):
            return None
        try:
            child.requests.send({**request, "environ": dict(os.environ), "cwd": os.getcwd()})
            return _reply(child, callbacks)
        except (EOFError, OSError) as error:
            _CHILD.clear()
            child.stop()
            return False, [], f"the dbt build process ended: {error or 'no reply'}", {}


def _await_ready(child: _Child) -> bool:
    if child.ready:
        return True
    try:
        child.ready = child.replies.recv() == "ready"
    except (EOFError, OSError):
        child.ready = False
    if not child.ready:
        _CHILD.clear()
        child.stop()
    return child.ready


def _reply(child: _Child, callbacks: Sequence[Callable]) -> tuple[bool, list, str, dict]:
    interrupted = False
    while True:
        try:
            message = child.replies.recv()
        except KeyboardInterrupt:
            interrupted = True  # the child gets it too (or now): dbt stops and answers
            child.process.send_signal(signal.SIGINT)
            continue
        except EOFError:
            if interrupted:
                _CHILD.clear()
                raise KeyboardInterrupt from None
            raise
        if message[0] == "event":
            event = SimpleNamespace(info=SimpleNamespace(name=message[1]), data=SimpleNamespace(**message[2]))
            for callback in callbacks:
                callback(event)
            continue
        _, success, rows, error, nodes, child_interrupted = message
        if interrupted or child_interrupted:
            _CHILD.clear()
            child.stop()
            raise KeyboardInterrupt
        return success, rows, error, nodes
