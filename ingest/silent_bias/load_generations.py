"""Ingest chain-of-thought generations: one JSONL file per model, one line per vignette.

Each line holds at least ``id`` and ``output_text``; ``status`` (default ``ok``, as the
original tooling assumed), ``prompt``, ``error_message``, ``timestamp``, ``run_id``,
``model_name``, ``sampling`` and ``prompt_template`` are kept when present, every other
field in ``attributes``. The model id comes from the caller (the study config) or the file
name. Every malformed line is reported by line number and nothing is loaded from the file.
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pyarrow as pa

from biaswh.ingest.common.readers import file_format, read_utf8
from biaswh.ingest.common.versions import IngestResult, SourceFile, write_version
from biaswh.warehouse.errors import InputError, UserError
from biaswh.warehouse.runs.registry import file_sha256

DATASET = "silent_bias_generations"
_KNOWN = {
    "id",
    "output_text",
    "status",
    "prompt",
    "error_message",
    "timestamp",
    "run_id",
    "model_name",
    "bias_feature",
    "bias_label",
    "sampling",
    "prompt_template",
}
_MAX_REPORTED = 10


def _problem(record) -> str | None:
    """Why a parsed line cannot be loaded, or None when it can."""
    if not isinstance(record, dict):
        return "not a JSON object"
    if not isinstance(record.get("id"), str) or not record["id"].strip():
        return "field 'id' is missing or empty"
    if not isinstance(record.get("output_text"), str):
        return "field 'output_text' is missing or not text"
    if not isinstance(record.get("status", "ok"), str):
        return "field 'status' is not text"
    return None


def read_generation_lines(path: Path) -> list[tuple[int, dict]]:
    """Parse every line; raise one InputError that lists every malformed line by number."""
    file_format(path, ("jsonl",))
    problems, records, first_line = [], [], {}
    for line_number, line in enumerate(read_utf8(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"line {line_number}: malformed JSON at column {exc.colno} ({exc.msg})")
            continue
        reason = _problem(record)
        if reason is None and record["id"].strip() in first_line:
            reason = f"duplicate id {record['id'].strip()!r} (first on line {first_line[record['id'].strip()]})"
        if reason:
            problems.append(f"line {line_number}: {reason}")
            continue
        first_line[record["id"].strip()] = line_number
        records.append((line_number, record))
    if problems:
        shown = "; ".join(problems[:_MAX_REPORTED])
        more = f"; and {len(problems) - _MAX_REPORTED} more" if len(problems) > _MAX_REPORTED else ""
        raise InputError(path, f"{len(problems)} malformed line(s), nothing loaded: {shown}{more}")
    if not records:
        raise InputError(path, "contains no generations")
    return records


def _text(value) -> str | None:
    return None if value is None else str(value)


def _row(line_number: int, record: dict) -> dict:
    sampling = record.get("sampling")
    return {
        "source_line": line_number,
        "case_id": record["id"].strip(),
        "prompt_sent": _text(record.get("prompt")),
        "output_text": record["output_text"],
        "status": record.get("status", "ok"),
        "error_message": _text(record.get("error_message")),
        "generated_at": _text(record.get("timestamp")),
        "generation_run_id": _text(record.get("run_id")),
        "model_name_in_file": _text(record.get("model_name")),
        "bias_feature_in_file": _text(record.get("bias_feature")),
        "bias_label_in_file": _text(record.get("bias_label")),
        "prompt_template": _text(record.get("prompt_template")),
        "sampling": None if sampling is None else json.dumps(sampling, sort_keys=True),
        "attributes": json.dumps({k: v for k, v in record.items() if k not in _KNOWN}, sort_keys=True, default=str),
    }


def load_generations(
    con: duckdb.DuckDBPyConnection,
    path: str | Path,
    *,
    vignette_set: str,
    model: str | None = None,
) -> IngestResult:
    """Load one model's generations JSONL into ``raw.silent_bias_generations`` as a new version.

    Parameters
    ----------
    con : an open, writable warehouse connection.
    path : a JSONL file, one generation per line.
    vignette_set : the name of the vignette set these generations answer (see ``load_vignettes``).
    model : the model id (default: the file name without suffix, e.g. ``qwq`` for ``qwq.jsonl``).

    Raises
    ------
    InputError
        Listing every malformed line by number; nothing from the file is written.
    """
    path = Path(path).expanduser().resolve()
    model = model or path.stem
    if not model.strip() or not vignette_set.strip():
        raise UserError(f"{path}: the model id and the vignette set name must not be empty")
    table = pa.Table.from_pylist([_row(n, r) for n, r in read_generation_lines(path)])
    sha256 = file_sha256(path)

    names = {"vignette_set": vignette_set, "model": model}
    source = SourceFile(DATASET, f"{vignette_set}/{model}", path, sha256, parameters=names)
    return write_version(con, source, table, raw_table="silent_bias_generations", constants=names)


def generation_files(path: str | Path) -> list[Path]:
    """A JSONL file itself, or every ``*.jsonl`` in a folder (sorted): one file per model."""
    path = Path(path).expanduser().resolve()
    if path.is_dir():
        files = sorted(path.glob("*.jsonl"))
        if not files:
            raise InputError(path, "folder holds no .jsonl generation files")
        return files
    return [path]
