"""Run failures that could not be written to the warehouse when they happened.

A run fails, and its status must become ``failed`` with the reason. When the warehouse cannot
be written at that moment (another process holds DuckDB's lock past ``BIASWH_BUSY_TIMEOUT``,
or the disk is full), the status cannot go into ``raw.runs``: DuckDB allows one writing
process, and nothing but DuckDB may write its file. So the failure goes into a small side
file, ``$BIASWH_HOME/pending_failures/<run_id>.json``, and the next process that opens the
warehouse for writing records it (:func:`apply_pending_failures`) before it would mark the
run ``interrupted`` for want of a live process. Until then, ``raw.runs`` shows ``running``.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path

import duckdb

from biaswh.warehouse.database.output_files import write_text_atomically
from biaswh.warehouse.settings.home import warehouse_paths

FOLDER_NAME = "pending_failures"
_RUN_ID = re.compile(r"^[0-9a-f]{32}$")


def _folder() -> Path:
    return warehouse_paths().home / FOLDER_NAME


def record_pending_failure(run_id: str, message: str) -> Path:
    """Leave ``run_id``'s failure for the next writer; return the side file.

    Written to a temporary name and renamed, so a reader never sees half a file.
    """
    folder = _folder()
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{run_id}.json"
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    write_text_atomically(target, json.dumps({"run_id": run_id, "message": message, "failed_at": now.isoformat()}))
    return target


def apply_pending_failures(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Mark each pending failure's run ``failed`` (if still ``running``) and remove its file.

    Returns the run ids recorded. A file that cannot be read as a pending failure is left
    where it is, and its run is treated as any other (interrupted once its process is gone).
    """
    folder = _folder()
    if not folder.is_dir():
        return []
    recorded = []
    for path in sorted(folder.glob("*.json")):
        try:
            pending = json.loads(path.read_text(encoding="utf-8"))
            run_id, message = pending["run_id"], str(pending["message"])
            failed_at = datetime.fromisoformat(pending["failed_at"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if not isinstance(run_id, str) or not _RUN_ID.match(run_id) or path.stem != run_id:
            continue
        con.execute(
            "update raw.runs set status = 'failed', finished_at = ?, message = ? where run_id = ?"
            " and status = 'running'",
            [failed_at, message, run_id],
        )
        path.unlink(missing_ok=True)
        recorded.append(run_id)
    return recorded
