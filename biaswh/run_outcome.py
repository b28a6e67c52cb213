"""How a run ends: marked succeeded when its work finishes, or failed with the error's message.

A run that cannot be marked failed at once (a reader still holds the file, a full disk) leaves
its failure for the next writer to record (:mod:`biaswh.warehouse.runs.pending_failures`).
A finished run then prints what to ask next, and where its site is, or that it was not redrawn.
"""

from __future__ import annotations

import duckdb

from biaswh.warehouse.database.connection import open_warehouse
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.pending_failures import record_pending_failure
from biaswh.warehouse.runs.study import FIRST_QUERIES

# The last line of `biaswh run --no-site` and `biaswh audit --no-site`.
SITE_NOT_REDRAWN = "dashboard site: not redrawn (--no-site); draw it with: biaswh dashboards"


def finish_or_fail(run_id: str, work, then=None) -> None:
    """Run ``work``; mark the run succeeded, or failed with the error's message (then re-raise).
    ``then(con)``: more to write after the success, in the same open of the warehouse.

    If marking it failed is impossible at once (:func:`record_failure`), the failure is left
    for the next writer to record; the original error is raised either way.
    """
    try:
        work()
    except BaseException as exc:
        record_failure(run_id, str(exc)[:2000] or type(exc).__name__)
        raise
    with open_warehouse() as con:
        con.execute("update raw.runs set status = 'succeeded', finished_at = now() where run_id = ?", [run_id])
        if then is not None:
            then(con)


def record_failure(run_id: str, message: str) -> None:
    """Mark the run ``failed`` with ``message`` now, without waiting for the warehouse.

    When that cannot be written now (a reader still holds the file, a full disk), the failure
    goes to a side file that the next process opening the warehouse for writing records
    (:mod:`biaswh.warehouse.runs.pending_failures`), so the run ends ``failed`` with its reason, not
    ``interrupted``. Waiting here would only repeat the wait that just failed.
    """
    try:
        with open_warehouse(wait=False) as con:
            con.execute(
                "update raw.runs set status = 'failed', finished_at = now(), message = ? where run_id = ?",
                [message, run_id],
            )
        return
    except (UserError, OSError, duckdb.Error):
        pass
    try:
        record_pending_failure(run_id, message)
    except OSError:
        pass  # nowhere to write: the next writer marks the run interrupted


# What to ask first after each kind of study (contract relations, reachable unqualified).
def print_next_steps(study, run_id: str, *, site: bool = True) -> None:
    """Three ways in: the site (printed last, when drawn), this run's headline query, and the run list."""
    step = next((s for s in [*study.analysis, *study.jobs] if s in FIRST_QUERIES), None)
    where = "open the dashboard site below; " if site else ""
    print(f"[{study.name}] next: {where}query this run (biaswh sql, or biaswh shell):")
    if step:
        print(f'  biaswh sql "{FIRST_QUERIES[step].format(run=run_id)}"')
    print('  biaswh sql "select run_name, run_status, started_at, inputs from dim_runs order by started_at desc"')
