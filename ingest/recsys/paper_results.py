"""Ingest the paper's published directional-bias and feature-importance files.

"LLMs as Content Curators" (paganick/socialmedia_LLM_recsys, ``results/submitted/``) ships,
beside ``pool_vs_recommended_summary.csv``:

* ``directional_bias_data.csv``: per feature, category (``mean_difference`` for continuous
  features) and condition, ``directional_bias, prop_pool, prop_recommended, feature_type,
  mean_pool, mean_recommended, std_diff`` (proportions for categorical rows, means for
  continuous ones; the other group is empty);
* ``feature_importance_data.csv``: per feature and condition, ``rf_importance,
  shap_importance, auroc, n_samples, n_positive, n_negative`` of a classifier predicting
  ``selected`` from the features.

Each loads as a versioned result set, so the paper's figures can be rebuilt from them.
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

CONDITION = ("dataset", "provider", "prompt_style")
DIRECTIONAL_COLUMNS = (
    "feature",
    "category",
    *CONDITION,
    "directional_bias",
    "prop_pool",
    "prop_recommended",
    "feature_type",
    "mean_pool",
    "mean_recommended",
    "std_diff",
)
IMPORTANCE_COLUMNS = (
    "feature",
    *CONDITION,
    "rf_importance",
    "shap_importance",
    "auroc",
    "n_samples",
    "n_positive",
    "n_negative",
)
_FEATURE_TYPES = ("categorical", "continuous")


def _text(path: Path, row: int, record: dict, column: str) -> str:
    value = record.get(column)
    if value is None or not str(value).strip():
        raise InputError(path, "missing value", row=row, field=column)
    return str(value).strip()


def _number(path: Path, row: int, record: dict, column: str, *, required: bool) -> float | None:
    raw = record.get(column)
    if raw is None or str(raw).strip() == "":
        if required:
            raise InputError(path, "missing value", row=row, field=column)
        return None
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise InputError(path, f"expected a number, got {raw!r}", row=row, field=column) from None
    if not math.isfinite(value):
        raise InputError(path, f"expected a finite number, got {raw!r}", row=row, field=column)
    return value


def _directional_row(path: Path, row: int, record: dict) -> dict:
    out = {"source_row": row}
    for column in ("feature", "category", *CONDITION, "feature_type"):
        out[column] = _text(path, row, record, column)
    if out["feature_type"] not in _FEATURE_TYPES:
        raise InputError(
            path, f"expected categorical or continuous, got {out['feature_type']!r}", row=row, field="feature_type"
        )
    out["directional_bias"] = _number(path, row, record, "directional_bias", required=True)
    categorical = out["feature_type"] == "categorical"
    for column in ("prop_pool", "prop_recommended"):
        out[column] = _number(path, row, record, column, required=categorical)
        if out[column] is not None and not 0.0 <= out[column] <= 1.0:
            raise InputError(path, f"a proportion must lie in [0, 1], got {out[column]}", row=row, field=column)
    for column in ("mean_pool", "mean_recommended", "std_diff"):
        out[column] = _number(path, row, record, column, required=not categorical)
    return out


def _importance_row(path: Path, row: int, record: dict) -> dict:
    out = {"source_row": row}
    for column in ("feature", *CONDITION):
        out[column] = _text(path, row, record, column)
    for column in ("rf_importance", "shap_importance", "auroc"):
        out[column] = _number(path, row, record, column, required=True)
    if not 0.0 <= out["auroc"] <= 1.0:
        raise InputError(path, f"AUROC must lie in [0, 1], got {out['auroc']}", row=row, field="auroc")
    for column in ("n_samples", "n_positive", "n_negative"):
        value = _number(path, row, record, column, required=True)
        if value != int(value) or value < 0:
            raise InputError(path, f"expected a count, got {record.get(column)!r}", row=row, field=column)
        out[column] = int(value)
    if out["n_positive"] + out["n_negative"] != out["n_samples"]:
        raise InputError(path, "n_positive + n_negative must equal n_samples", row=row, field="n_samples")
    return out


def _checked(path: Path, records: list[dict], columns: tuple[str, ...], key: tuple[str, ...], parse) -> pa.Table:
    if not records:
        raise InputError(path, "contains no result rows")
    missing = [c for c in columns if c not in records[0]]
    if missing:
        raise InputError(path, f"missing column; the published format has {', '.join(columns)}", field=missing[0])
    rows, seen = [], {}
    for number, record in enumerate(records, start=1):
        row = parse(path, number, record)
        identity = tuple(row[c] for c in key)
        if identity in seen:
            raise InputError(
                path, f"duplicate row {identity} (first seen in row {seen[identity]})", row=number, field=key[0]
            )
        seen[identity] = number
        rows.append(row)
    return pa.Table.from_pylist(rows)


def _load(con, path, *, name, dataset: str, table_name: str, columns, key, parse) -> IngestResult:
    path = Path(path).expanduser().resolve()
    table = _checked(path, read_records(path, allowed=("csv",)), columns, key, parse)
    result_set = name or path.stem
    sha256 = file_sha256(path)
    rows = table.select(["source_row", *columns])
    source = SourceFile(dataset, result_set, path, sha256)
    return write_version(con, source, rows, raw_table=table_name, constants={"result_set": result_set})


def load_recsys_directional_bias(
    con: duckdb.DuckDBPyConnection, path: str | Path, *, name: str | None = None
) -> IngestResult:
    """Load a published ``directional_bias_data.csv`` into ``raw.recsys_published_directional_bias``.

    Returns ``loaded`` with the new version, or ``unchanged`` when the file is already loaded.
    Raises :class:`InputError` naming the file, row and field of the first bad value; nothing is written.
    """
    return _load(
        con,
        path,
        name=name,
        dataset="recsys_directional_bias",
        table_name="recsys_published_directional_bias",
        columns=DIRECTIONAL_COLUMNS,
        key=("feature", "category", *CONDITION),
        parse=_directional_row,
    )


def load_recsys_feature_importance(
    con: duckdb.DuckDBPyConnection, path: str | Path, *, name: str | None = None
) -> IngestResult:
    """Load a published ``feature_importance_data.csv`` into ``raw.recsys_published_feature_importance``.

    Returns ``loaded`` with the new version, or ``unchanged`` when the file is already loaded.
    Raises :class:`InputError` naming the file, row and field of the first bad value; nothing is written.
    """
    return _load(
        con,
        path,
        name=name,
        dataset="recsys_feature_importance",
        table_name="recsys_published_feature_importance",
        columns=IMPORTANCE_COLUMNS,
        key=("feature", *CONDITION),
        parse=_importance_row,
    )
