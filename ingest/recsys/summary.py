"""Ingest condition-level recommendation-bias results in the original tool's format.

The original pipeline (paganick/llm-recommendation-bias-analysis) writes
``pool_vs_recommended_summary.csv`` with one row per feature × dataset × provider ×
prompt style: ``feature, dataset, provider, prompt_style, bias, p_value, metric,
significant``. Loading it lets published results be normalised, aggregated and charted
without the post-level data.
"""

from __future__ import annotations

import math
from pathlib import Path

import duckdb
import pyarrow as pa

from biaswh.ingest.common.readers import read_records
from biaswh.ingest.common.versions import IngestResult, SourceFile, write_version
from biaswh.warehouse.errors import InputError
from biaswh.warehouse.runs.registry import file_sha256

SUMMARY_COLUMNS = ("feature", "dataset", "provider", "prompt_style", "bias", "p_value", "metric", "significant")
_TEXT_COLUMNS = ("feature", "dataset", "provider", "prompt_style", "metric")
_BOOLEAN_TEXT = {"true": True, "false": False, "1": True, "0": False}


def _number(path: Path, row: int, record: dict, column: str) -> float:
    raw = record.get(column)
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise InputError(path, f"expected a number, got {raw!r}", row=row, field=column) from None
    if not math.isfinite(value):
        raise InputError(path, f"expected a finite number, got {raw!r}", row=row, field=column)
    return value


def _validated_row(path: Path, row: int, record: dict) -> dict:
    out = {"source_row": row}
    for column in _TEXT_COLUMNS:
        value = record.get(column)
        if value is None or not str(value).strip():
            raise InputError(path, "missing value", row=row, field=column)
        out[column] = str(value).strip()
    out["bias"] = _number(path, row, record, "bias")
    p_value = _number(path, row, record, "p_value")
    if not 0.0 <= p_value <= 1.0:
        raise InputError(path, f"p-value must lie in [0, 1], got {p_value}", row=row, field="p_value")
    out["p_value"] = p_value
    significant = _BOOLEAN_TEXT.get(str(record.get("significant")).strip().lower())
    if significant is None:
        raise InputError(
            path, f"expected True or False, got {record.get('significant')!r}", row=row, field="significant"
        )
    out["significant"] = significant
    return out


def _checked_rows(path: Path, records: list[dict]) -> list[dict]:
    missing = [c for c in SUMMARY_COLUMNS if c not in records[0]]
    if missing:
        raise InputError(
            path, f"missing column; the original format has {', '.join(SUMMARY_COLUMNS)}", field=missing[0]
        )
    rows, seen = [], {}
    for number, record in enumerate(records, start=1):
        row = _validated_row(path, number, record)
        key = (row["feature"], row["dataset"], row["provider"], row["prompt_style"])
        if key in seen:
            raise InputError(
                path, f"duplicate condition {key} (first seen in row {seen[key]})", row=number, field="feature"
            )
        seen[key] = number
        rows.append(row)
    return rows


def load_recsys_summary(
    con: duckdb.DuckDBPyConnection,
    path: str | Path,
    *,
    name: str | None = None,
) -> IngestResult:
    """Load a ``pool_vs_recommended_summary.csv`` into ``raw.recsys_published_results``.

    Parameters
    ----------
    con : an open, writable warehouse connection.
    path : the CSV file in the original tool's eight-column format.
    name : the result set's name (default: the file name without suffix).

    Returns
    -------
    IngestResult
        ``loaded`` with the new version, or ``unchanged`` when this file is already loaded.

    Raises
    ------
    InputError
        Naming the file, row and field of the first bad value; nothing is written.
    """
    path = Path(path).expanduser().resolve()
    records = read_records(path, allowed=("csv",))
    if not records:
        raise InputError(path, "contains no result rows")
    table = pa.Table.from_pylist(_checked_rows(path, records))
    result_set = name or path.stem
    sha256 = file_sha256(path)

    source = SourceFile("recsys_summary", result_set, path, sha256)
    return write_version(con, source, table, raw_table="recsys_published_results", constants={"result_set": result_set})
