"""Turn DuckDB's lock-conflict text into the one "warehouse is busy" line that names the holder.

DuckDB refuses a second process with ``Could not set lock on file "...": Conflicting lock is
held in /usr/bin/python3 (PID 4242)``. The same text reaches us from our own connections and,
through dbt's log, from ``dbt build``'s connection; both become the same message.
"""

from __future__ import annotations

import re
from pathlib import Path

from biaswh.warehouse.errors import WarehouseBusyError

_LOCK_CONFLICT = re.compile(r"Could not set lock on file|Conflicting lock is held", re.IGNORECASE)
_HOLDER = re.compile(r"held in (?P<program>.*?) \(PID (?P<pid>\d+)\)")
_COMMAND_WIDTH = 100
BUSY_ADVICE = "; wait for it to finish and try again"


def _command_line(pid: int) -> str | None:
    """The holder's command line from ``/proc`` (Linux), shortened; None where it cannot be read."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    text = " ".join(part.decode("utf-8", "replace") for part in raw.split(b"\0") if part)
    text = " ".join(text.split())  # a `python -c` script spans lines: one line in the message
    return text if len(text) <= _COMMAND_WIDTH else text[: _COMMAND_WIDTH - 1] + "…"


def is_lock_conflict(text: str) -> bool:
    """Whether DuckDB's error text says another process holds the file's lock."""
    return bool(_LOCK_CONFLICT.search(text))


def busy_error(text: str, path, *, during: str = "") -> WarehouseBusyError:
    """The one-line busy error for DuckDB's lock-conflict ``text`` on ``path``.

    The message names the holder's process id and its command line (from ``/proc``, else the
    program DuckDB names), e.g. ``warehouse is busy: process 4242 is using /w/warehouse.duckdb
    (python -m biaswh.cli sql ...); wait for it to finish and try again``. ``during`` says what
    could not open the file (``dbt build (sources)``).
    """
    holder = _HOLDER.search(text)
    if holder:
        pid = int(holder.group("pid"))
        command = _command_line(pid) or holder.group("program")
        who = f"process {pid} is using {path} ({command})"
    else:
        who = f"another process is using {path}"
    what = f" so {during} could not open it" if during else ""
    return WarehouseBusyError(f"warehouse is busy: {who}{what}{BUSY_ADVICE}")
