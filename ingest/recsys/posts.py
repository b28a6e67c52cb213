"""Ingest post-level recommendation data: every item shown to the model, and a feature table.

The posts file (CSV, JSONL or Parquet) has one row per item shown to the model under a
condition (dataset, provider or model, prompt style, trial), a ``selected`` flag (1 when the
model recommended it) and one column per feature. The feature table (CSV: ``feature, type``)
declares each feature ``numerical``, ``categorical`` or ``binary``; other columns of the
posts file (text, persona, ...) are not loaded. Values are stored long, one row per
(item, feature), in ``raw.recsys_post_values``.
"""

from __future__ import annotations

import math
from pathlib import Path

import duckdb
import pyarrow as pa

from biaswh.ingest.common.readers import read_records
from biaswh.ingest.common.versions import CompanionFile, IngestResult, SourceFile, write_version
from biaswh.warehouse.errors import InputError, UserError
from biaswh.warehouse.runs.registry import file_sha256

FEATURE_TYPES = ("numerical", "categorical", "binary")
DEFAULT_CONDITION_COLUMNS = {
    "dataset": "dataset",
    "provider": "provider",
    "prompt_style": "prompt_style",
    "trial": "trial",
}
_TRUE, _FALSE = {"1", "1.0", "true", "yes"}, {"0", "0.0", "false", "no"}
_SCHEMA = pa.schema(
    [
        ("source_row", pa.int32()),
        ("item_id", pa.string()),
        ("dataset", pa.string()),
        ("provider", pa.string()),
        ("prompt_style", pa.string()),
        ("trial", pa.string()),
        ("selected", pa.bool_()),
        ("feature", pa.string()),
        ("value_text", pa.string()),
        ("value_number", pa.float64()),
    ]
)


def _is_missing(value) -> bool:
    return (
        value is None
        or (isinstance(value, str) and not value.strip())
        or (isinstance(value, float) and math.isnan(value))
    )


def _flag(path: Path, row: int, column: str, value) -> bool:
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise InputError(path, f"expected 0/1 or true/false, got {value!r}", row=row, field=column)


def _feature_value(path: Path, row: int, feature: str, feature_type: str, value) -> tuple[str | None, float | None]:
    if _is_missing(value):
        return None, None
    if feature_type == "categorical":
        return str(value).strip(), None
    if feature_type == "binary":
        flag = _flag(path, row, feature, value)
        return ("1" if flag else "0"), float(flag)
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(path, f"numerical feature: expected a number, got {value!r}", row=row, field=feature) from None
    if not math.isfinite(number):
        raise InputError(path, f"numerical feature: expected a finite number, got {value!r}", row=row, field=feature)
    return None, number


def _read_feature_types(path: str | Path) -> list[dict]:
    """Read and check a feature table (``feature, type``): one row per feature."""
    path = Path(path).expanduser().resolve()
    records = read_records(path, allowed=("csv",))
    if not records:
        raise InputError(path, "contains no features")
    for column in ("feature", "type"):
        if column not in records[0]:
            raise InputError(path, "missing column; a feature table has columns feature, type", field=column)
    seen: dict[str, int] = {}
    out = []
    for number, record in enumerate(records, start=1):
        feature = (record.get("feature") or "").strip()
        if not feature:
            raise InputError(path, "missing feature name", row=number, field="feature")
        if feature in seen:
            raise InputError(
                path, f"duplicate feature {feature!r} (first in row {seen[feature]})", row=number, field="feature"
            )
        feature_type = (record.get("type") or "").strip().lower()
        if feature_type not in FEATURE_TYPES:
            raise InputError(
                path,
                f"unknown feature type {record.get('type')!r}; expected one of {', '.join(FEATURE_TYPES)}",
                row=number,
                field="type",
            )
        seen[feature] = number
        out.append({"source_row": number, "feature": feature, "feature_type": feature_type})
    return out


def _condition_getters(
    path: Path, columns: set[str], condition_columns: dict[str, str], fixed_conditions: dict[str, str]
) -> dict:
    getters = {}
    for role in DEFAULT_CONDITION_COLUMNS:
        column = condition_columns[role]
        if column in columns:
            getters[role] = column
        elif role in fixed_conditions:
            getters[role] = None
        elif role == "trial":
            getters[role] = None
            fixed_conditions.setdefault("trial", "1")  # one trial when the file records none
        else:
            raise InputError(
                path,
                f"condition column for {role} not found; map it with condition_columns"
                f" or give a fixed value in fixed_conditions",
                field=column,
            )
    return getters


def _long_rows(path, records, features, *, getters, fixed_conditions, selected_column, item_id_column) -> pa.Table:
    columns = {name: [] for name in _SCHEMA.names}
    for row, record in enumerate(records, start=1):
        conditions = {}
        for role, column in getters.items():
            value = fixed_conditions[role] if column is None else record.get(column)
            if _is_missing(value):
                raise InputError(path, f"missing {role}", row=row, field=column)
            conditions[role] = str(value).strip()
        if _is_missing(record.get(selected_column)):
            raise InputError(path, "missing selected flag", row=row, field=selected_column)
        selected = _flag(path, row, selected_column, record.get(selected_column))
        item_id = record.get(item_id_column) if item_id_column else None
        item_id = str(row) if _is_missing(item_id) else str(item_id)
        for feature in features:
            text, number = _feature_value(
                path, row, feature["feature"], feature["feature_type"], record.get(feature["feature"])
            )
            for name, value in (
                ("source_row", row),
                ("item_id", item_id),
                *conditions.items(),
                ("selected", selected),
                ("feature", feature["feature"]),
                ("value_text", text),
                ("value_number", number),
            ):
                columns[name].append(value)
    return pa.Table.from_pydict(columns, schema=_SCHEMA)


def _read_posts(path: Path, features: list[dict], features_path: Path, selected_column: str) -> tuple[list, set]:
    """The posts file's records and columns, refused without posts, its selected column or a declared feature."""
    records = read_records(path, allowed=("csv", "jsonl", "parquet"))
    if not records:
        raise InputError(path, "contains no posts")
    file_columns = set().union(*(r.keys() for r in records[:1]))
    if selected_column not in file_columns:
        raise InputError(path, "selected column not found", field=selected_column)
    missing = [f["feature"] for f in features if f["feature"] not in file_columns]
    if missing:
        raise InputError(path, f"feature declared in {features_path.name} has no column", field=missing[0])
    return records, file_columns


def load_recsys_posts(
    con: duckdb.DuckDBPyConnection,
    path: str | Path,
    *,
    features_path: str | Path,
    name: str | None = None,
    condition_columns: dict[str, str] | None = None,
    fixed_conditions: dict[str, str] | None = None,
    selected_column: str = "selected",
    item_id_column: str | None = "post_id",
    provenance: dict | None = None,
) -> IngestResult:
    """Load a post-level file and its feature table as one new version of a post set.

    Parameters
    ----------
    con : an open, writable warehouse connection.
    path : the posts file (CSV, JSONL or Parquet), one row per item shown to the model.
    features_path : the feature table (CSV with columns ``feature, type``).
    name : the post set's name (default: the posts file name without suffix).
    condition_columns : role -> column for ``dataset``, ``provider``, ``prompt_style``, ``trial``
        (defaults: the role names); e.g. ``{"provider": "model"}``.
    fixed_conditions : role -> value for a condition the file does not record (one dataset, say).
    selected_column : the 0/1 column that marks recommended items.
    item_id_column : the item id column; when absent, the source row number is used.
    provenance : extra facts recorded with the run's parameters (e.g. how a synthetic file
        was generated); part of the version's identity.

    Raises
    ------
    InputError
        Naming the file, row and field of the first bad value; nothing is written.
    """
    path = Path(path).expanduser().resolve()
    features_path = Path(features_path).expanduser().resolve()
    condition_columns = {**DEFAULT_CONDITION_COLUMNS, **(condition_columns or {})}
    unknown = set(condition_columns) - set(DEFAULT_CONDITION_COLUMNS)
    if unknown:
        raise UserError(f"unknown condition role(s) {sorted(unknown)}; roles are {sorted(DEFAULT_CONDITION_COLUMNS)}")
    fixed_conditions = dict(fixed_conditions or {})
    features = _read_feature_types(features_path)
    records, file_columns = _read_posts(path, features, features_path, selected_column)
    getters = _condition_getters(path, file_columns, condition_columns, fixed_conditions)
    table = _long_rows(
        path,
        records,
        features,
        getters=getters,
        fixed_conditions=fixed_conditions,
        selected_column=selected_column,
        item_id_column=item_id_column,
    )
    post_set = name or path.stem
    sha256, features_sha256 = file_sha256(path), file_sha256(features_path)
    feature_rows = pa.Table.from_pylist(features).select(["source_row", "feature", "feature_type"])
    features_file = CompanionFile(features_path, features_sha256, "recsys_feature_types", feature_rows)
    # The feature table's sha256 is a load parameter: a changed table makes a new version.
    parameters = {
        "features_path": str(features_path),
        "features_sha256": features_sha256,
        "condition_columns": condition_columns,
        "fixed_conditions": fixed_conditions,
        "selected_column": selected_column,
        "item_id_column": item_id_column,
        "provenance": provenance or {},
    }
    return write_version(
        con,
        SourceFile("recsys_posts", post_set, path, sha256, parameters),
        table,
        raw_table="recsys_post_values",
        constants={"post_set": post_set},
        companions=(features_file,),
    )
