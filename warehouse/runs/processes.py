"""Processes the warehouse deals with: whether a run's owner is alive, and tying dbt's life to ours."""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from pathlib import Path

_PR_SET_PDEATHSIG = 1


def process_alive(pid: int) -> bool:
    """Whether ``pid`` names a live process on this host (a zombie, dead but not yet reaped, is not)."""
    if pid <= 0:
        return False  # 0 and negative numbers name process groups, not a process
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # alive, owned by another user
    except OverflowError:
        return False  # not a pid this system can have
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no /proc (not Linux): the signal check is all there is
    return stat.rpartition(")")[2].split()[0] not in ("Z", "X")


def _linux_prctl():
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _linux_prctl()


def _die_with_parent() -> None:
    """``preexec_fn`` of a child (``dbt build``): Linux kills it when its parent dies (PR_SET_PDEATHSIG).

    Without it a killed ``biaswh`` leaves ``dbt build`` running, holding the warehouse's lock.
    If the parent died before the request took effect, the child exits at once.
    """
    parent = os.getppid()
    _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


# A preexec_fn only where prctl exists (Windows has no preexec_fn; elsewhere it only slows the fork).
DIE_WITH_PARENT = _die_with_parent if _PRCTL is not None else None


def exit_without_teardown(code: int) -> None:
    """End the process with ``code`` once its threads finished, the exit handlers ran and the output
    is flushed, skipping the interpreter's teardown of its modules. A study run's process (freeing
    DuckDB, Lance, numba and dbt's parent side took 0.3-0.4 s after its last line) and its dbt
    child (which the run's exit waits for) free nothing another process could see: every
    warehouse connection is closed by then."""
    import atexit
    import threading

    for thread in threading.enumerate():  # as the interpreter's exit does first: its threads finish
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            code = code or 120  # what the interpreter's own exit gives a failed flush
    os._exit(code)
