"""Ingest silent-bias vignettes: ``{"cases": [{id, prompt, bias_feature, bias_label, metadata}]}``.

A vignette is a clinical case whose prompt carries one demographic feature (``bias_feature``)
and the stereotyped diagnosis a biased model would give for it (``bias_label``). The bias
dimension (race, gender, ...) comes from ``metadata.dimension``.
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pyarrow as pa

from biaswh.ingest.common.readers import file_format, parse_json, read_jsonl, read_utf8
from biaswh.ingest.common.versions import IngestResult, SourceFile, write_version
from biaswh.warehouse.errors import InputError
from biaswh.warehouse.runs.registry import file_sha256

DATASET = "silent_bias_vignettes"
_TEXT_FIELDS = ("id", "prompt", "bias_feature", "bias_label")


def _records(path: Path) -> list[dict]:
    fmt = file_format(path, ("json", "jsonl"))
    text = read_utf8(path)
    if fmt == "jsonl":
        return read_jsonl(path, text)
    document = parse_json(path, text)
    if isinstance(document, dict):
        document = document.get("cases")
    if not isinstance(document, list):
        raise InputError(path, "expected a JSON object with a 'cases' array (or a bare array of cases)")
    return document


def _row(path: Path, number: int, record, seen: dict[str, int]) -> dict:
    if not isinstance(record, dict):
        raise InputError(path, "is not a JSON object", row=number)
    for name in _TEXT_FIELDS:
        value = record.get(name)
        if not isinstance(value, str) or not value.strip():
            raise InputError(path, "missing or empty text", row=number, field=name)
    metadata = record.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise InputError(path, "metadata must be an object", row=number, field="metadata")
    dimension = metadata.get("dimension")
    if not isinstance(dimension, str) or not dimension.strip():
        raise InputError(path, "missing bias dimension", row=number, field="metadata.dimension")
    case_id = record["id"].strip()
    if case_id in seen:
        raise InputError(
            path, f"duplicate case id {case_id!r} (first seen in row {seen[case_id]})", row=number, field="id"
        )
    seen[case_id] = number
    return {
        "source_row": number,
        "case_id": case_id,
        "prompt": record["prompt"],
        "bias_feature": record["bias_feature"].strip(),
        "bias_label": record["bias_label"].strip(),
        "dimension": dimension.strip(),
        "metadata": json.dumps(metadata, sort_keys=True),
    }


def read_vignettes(path: str | Path) -> list[dict]:
    """Read and check a vignette file: one dict per vignette (case_id, prompt, bias_feature, ...).

    Raises
    ------
    InputError
        Naming the file, row and field of the first bad vignette.
    """
    path = Path(path).expanduser().resolve()
    records = _records(path)
    if not records:
        raise InputError(path, "contains no vignettes")
    seen: dict[str, int] = {}
    return [_row(path, n, r, seen) for n, r in enumerate(records, start=1)]


def load_vignettes(con: duckdb.DuckDBPyConnection, path: str | Path, *, name: str | None = None) -> IngestResult:
    """Load a vignette file into ``raw.silent_bias_vignettes`` as a new version of a vignette set.

    Parameters
    ----------
    con : an open, writable warehouse connection.
    path : JSON (``{"cases": [...]}`` or a bare array) or JSONL, one vignette per record.
    name : the vignette set's name (default: the file name without suffix); generations refer to it.

    Raises
    ------
    InputError
        Naming the file, row and field of the first bad vignette; nothing is written.
    """
    path = Path(path).expanduser().resolve()
    table = pa.Table.from_pylist(read_vignettes(path))
    vignette_set = name or path.stem
    sha256 = file_sha256(path)

    source = SourceFile(DATASET, vignette_set, path, sha256)
    return write_version(
        con, source, table, raw_table="silent_bias_vignettes", constants={"vignette_set": vignette_set}
    )
