"""How a run ends: marked succeeded when its work finishes, or failed with the error's message.

A run that cannot be marked failed at once (a reader still holds the file, a full disk) leaves
its failure for the next writer to record (:mod:`biaswh.warehouse.runs.pending_failures`).
"""

from __future__ import annotations

import duckdb

from biaswh.warehouse.database.connection import open_warehouse
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.pending_failures import record_pending_failure


def finish_or_fail(run_id: str, work) -> None:
    """Run ``work``; mark the run succeeded, or failed with the error's message (then re-raise).

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
