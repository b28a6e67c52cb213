"""Load dbt while a study run does its own work, so its first build starts building.

The first dbt call of a process pays dbt's start-up before it builds anything: importing dbt
and its adapter (2.0-2.7 s measured at load 10 on 2 cores) and loading the kept parsed project
(:func:`~biaswh.warehouse.dbt_build.parse_cache.load_parsed`, 0.6 s, then a garbage-collector
freeze, 0.4 s). A warm monitoring tick spent 3.7 s of its 10.8 s there. None of it depends on
the run, so :func:`~biaswh.warehouse.dbt_build.invoke.start_dbt_in_background` does it in the
thread :func:`start_in_background` starts, while the run ingests and computes, and
:func:`wait_for_dbt` (called by every dbt call first) waits for it to end: no dbt call ever runs
beside it. The two threads import disjoint modules (checked on a dialect run and a monitoring
tick with an import audit hook), so neither waits on the other's imports.
"""

from __future__ import annotations

import threading
from typing import Callable

THREAD_NAME = "biaswh-dbt-warm-start"
_STARTED: list[threading.Thread] = []


def start_in_background(work: Callable[[], None]) -> None:
    """Run ``work`` in the background thread, after any earlier one ended."""
    wait_for_dbt()
    thread = threading.Thread(target=work, name=THREAD_NAME, daemon=True)
    _STARTED[:] = [thread]
    thread.start()


def wait_for_dbt() -> None:
    """Return once a background start (if any) has finished."""
    if _STARTED and _STARTED[-1].is_alive() and _STARTED[-1] is not threading.current_thread():
        _STARTED[-1].join()
