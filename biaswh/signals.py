"""Ctrl-C for the command's main thread only: helper threads started meanwhile block SIGINT.

And what a query interrupted by it raises, named: DuckDB's Python client reports a Ctrl-C during a
query as ``RuntimeError: Query interrupted`` (or its ``InterruptException``), not as the
``KeyboardInterrupt`` it was.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def helper_threads_without_ctrl_c() -> Iterator[None]:
    """Threads started inside (DuckDB's at import and connect, the shell's statement thread and
    the threads DuckDB starts from it) inherit a mask that blocks SIGINT.

    The kernel gives a process's SIGINT to any thread that does not block it. Taken by a helper
    thread, it runs Python's handler there, which only marks the signal: readline, waiting in
    the main thread, is not woken, and `biaswh shell`'s prompt ignores the Ctrl-C (seen in CI,
    six in a row). With every helper blocking it, SIGINT always reaches the main thread.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def is_interrupted_query(exc: BaseException) -> bool:
    """Whether ``exc`` is DuckDB's report of a query stopped by Ctrl-C (the command then exits 130)."""
    import duckdb

    if isinstance(exc, duckdb.InterruptException):
        return True
    return type(exc) is RuntimeError and str(exc).startswith("Query interrupted")
