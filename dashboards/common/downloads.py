"""What a table's "Download CSV" and ``biaswh export`` hold: the stored values, not the display text.

Each table of a page keeps, beside its HTML, the values it was drawn from as CSV text: one column
per number (``p_value``, ``p_adjusted``, ``ci_low``, ``ci_high``, ...), floats written exactly
(shortest repr: they parse back to the same doubles), lists joined with "; ", timestamps in ISO
format, missing values empty; and, first, the ``run_id`` and ``study`` of the page or card (and the
study's ``data`` kind where the warehouse records one). The site sets those with
:func:`download_context`; :func:`capturing_tables` hands a page's tables to ``biaswh export``.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Iterator

import numpy as np
import pandas as pd

from biaswh.dashboards.common.queries import column_label

# The run a page or card shows: {"run_id": ..., "study": ..., "data": ...}, added to each download.
_context: ContextVar[dict | None] = ContextVar("download_context", default=None)
_captured: ContextVar[list | None] = ContextVar("captured_tables", default=None)
CONTEXT_COLUMNS = ("run_id", "study", "data")
_TAG = re.compile(r"<[^>]+>")


@dataclass(frozen=True)
class CapturedTable:
    """One table as a page drew it: its column headers, its display text and its stored values."""

    columns: list[str]
    display: list[list[str]]
    data: pd.DataFrame
    payload: str  # the CSV as embedded in the page: a page body finds its table by it


@contextmanager
def download_context(**columns) -> Iterator[None]:
    """Add ``columns`` (``run_id``, ``study``, ``data``; None ones left out) to every table drawn in the block."""
    token = _context.set({name: value for name, value in columns.items() if value is not None})
    try:
        yield
    finally:
        _context.reset(token)


@contextmanager
def capturing_tables() -> Iterator[list[CapturedTable]]:
    """Collect, in page order, the tables drawn while the block runs."""
    tables: list[CapturedTable] = []
    token = _captured.set(tables)
    try:
        yield tables
    finally:
        _captured.reset(token)


def run_context(con, run_id: str | None) -> dict:
    """``run_id``, its ``study`` (config name) and its ``data`` kind (real, synthetic or demo)."""
    from biaswh.dashboards.common.runs import data_kind, study_names

    if run_id is None:
        return {"run_id": None}
    return {"run_id": run_id, "study": study_names(con, [run_id]).get(run_id), "data": data_kind(con, run_id)}


def _plain(html_text: str) -> str:
    """Pre-built cell HTML as plain text: tags become spaces, entities are decoded."""
    import html

    return re.sub(r"\s+", " ", html.unescape(_TAG.sub(" ", str(html_text)))).strip()


def stored_value(value):
    """One value as the download stores it: numbers as they are, lists joined, times in ISO format."""
    if isinstance(value, (list, tuple, np.ndarray)):
        return "; ".join(str(stored_value(v)) for v in value)
    if isinstance(value, (dt.datetime, dt.date, pd.Timestamp)):
        return value.isoformat()
    if isinstance(value, np.generic):
        return value.item()
    return value


def _frame(columns: list[str], rows: list[list], data, raw_columns: frozenset[str]) -> pd.DataFrame:
    if data is None:
        names = [column_label(c)[1] or c for c in columns]
        names = [name if "," not in name else column for name, column in zip(names, columns)]
        values = [
            [_plain(v) if c in raw_columns and isinstance(v, str) else v for c, v in zip(columns, row)] for row in rows
        ]
        frame = pd.DataFrame(values, columns=names)
    elif isinstance(data, pd.DataFrame):
        frame = data.copy()
    else:
        frame = pd.DataFrame(list(data))
    frame = frame.apply(lambda column: column.map(stored_value) if column.dtype == object else column)
    for name, value in (_context.get() or {}).items():
        if name not in frame.columns:
            frame[name] = value
    first = [c for c in CONTEXT_COLUMNS if c in frame.columns]
    return frame[first + [c for c in frame.columns if c not in first]]


def csv_text(frame: pd.DataFrame) -> str:
    """RFC 4180 CSV of ``frame``: floats exactly (repr), missing values empty."""
    return frame.to_csv(index=False, lineterminator="\r\n")


def download_payload(
    columns: list[str], rows: list[list], data, *, display: list[list[str]], raw_columns: frozenset[str]
) -> str:
    """The table's stored values as a JSON string of CSV text, safe inside a ``<script>`` element;
    ``display``: the cells' text as the page shows it (kept for :func:`capturing_tables`)."""
    frame = _frame(columns, rows, data, raw_columns)
    payload = json.dumps(csv_text(frame)).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    captured = _captured.get()
    if captured is not None:
        text = [[_plain(v) if c in raw_columns else v for c, v in zip(columns, row)] for row in display]
        captured.append(CapturedTable(list(columns), text, frame, payload))
    return payload
