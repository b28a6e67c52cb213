"""Ingest SQuAD v1.1 from Hugging Face, the official JSON, JSONL or Parquet.

Rows keep the Hugging Face order (articles, then paragraphs, then questions, as they
appear in the official JSON): the row index is the key that paired queries reference.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import duckdb
import pyarrow as pa

from biaswh.ingest.common.readers import (
    file_format,
    int32_value,
    is_blank,
    parse_json,
    read_jsonl,
    read_parquet,
    read_utf8,
)
from biaswh.ingest.common.versions import IngestResult, SourceFile, unchanged_result, write_version
from biaswh.warehouse.errors import InputError, UserError
from biaswh.warehouse.progress import counted
from biaswh.warehouse.runs.registry import file_sha256

HF_PREFIX = "hf:"
_SCHEMA = pa.schema(
    [
        ("row_idx", pa.int32()),
        ("squad_id", pa.string()),
        ("title", pa.string()),
        ("context", pa.string()),
        ("question", pa.string()),
        ("answer_texts", pa.list_(pa.string())),
        ("answer_starts", pa.list_(pa.int32())),
    ]
)


def _objects(path: Path, value, where: str, field: str) -> list[dict]:
    """``value`` (the list at ``where``.``field``), checked to be a list of JSON objects."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(path, f"must be a list, got {type(value).__name__}", row=where or None, field=field)
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            raise InputError(
                path,
                f"must be an object, got {type(item).__name__}",
                row=f"{where}.{field}[{i}]" if where else f"{field}[{i}]",
            )
    return value


def _official_json_records(path: Path, document: dict) -> list[dict]:
    """Flatten ``data[].paragraphs[].qas[]`` into Hugging Face style records."""
    records = []
    for a, article in enumerate(_objects(path, document["data"], "", "data")):
        for p, paragraph in enumerate(_objects(path, article.get("paragraphs"), f"data[{a}]", "paragraphs")):
            if not isinstance(paragraph.get("context"), str):
                raise InputError(path, "missing or non-text context", row=f"data[{a}].paragraphs[{p}]", field="context")
            qas = _objects(path, paragraph.get("qas"), f"data[{a}].paragraphs[{p}]", "qas")
            for q, qa in enumerate(qas):
                answers = _objects(path, qa.get("answers"), f"data[{a}].paragraphs[{p}].qas[{q}]", "answers")
                records.append(
                    {
                        "_where": f"data[{a}].paragraphs[{p}].qas[{q}]",
                        "id": qa.get("id"),
                        "title": article.get("title"),
                        "context": paragraph["context"],
                        "question": qa.get("question"),
                        "answers": {
                            "text": [x.get("text") for x in answers],
                            "answer_start": [x.get("answer_start") for x in answers],
                        },
                    }
                )
    return records


def _validated_row(path: Path, index: int, record: dict) -> dict:
    if not isinstance(record, dict):
        raise InputError(path, f"a SQuAD row must be an object, got {type(record).__name__}", row=index + 1)
    where = record.get("_where", index + 1)
    for name in ("context", "question"):
        value = record.get(name)
        if not isinstance(value, str) or is_blank(value):  # zero-width characters alone are empty
            raise InputError(path, "missing or empty text", row=where, field=name)
    answers = record.get("answers") or {"text": [], "answer_start": []}
    if isinstance(answers, str):  # JSONL written by pandas may hold the struct as a string
        try:
            answers = json.loads(answers)
        except json.JSONDecodeError:
            raise InputError(path, "answers is text that is not JSON", row=where, field="answers") from None
    if not isinstance(answers, dict):
        raise InputError(path, "answers must be an object with text and answer_start lists", row=where, field="answers")
    texts, starts = answers.get("text") or [], answers.get("answer_start") or []
    if (
        not isinstance(texts, list)
        or not isinstance(starts, list)
        or len(texts) != len(starts)
        or not all(isinstance(t, str) for t in texts)
    ):
        raise InputError(
            path, "answers.text and answers.answer_start must be equal-length lists", row=where, field="answers"
        )
    starts = [int32_value(path, s, row=where, field="answers.answer_start", minimum=0) for s in starts]
    for start, text in zip(starts, texts):
        if start + len(text) > len(record["context"]):
            raise InputError(
                path,
                f"answer {text!r} at {start} runs past the end of the context ({len(record['context'])} characters)",
                row=where,
                field="answers.answer_start",
            )
    squad_id, title = record.get("id"), record.get("title")
    if squad_id is not None and (isinstance(squad_id, bool) or not isinstance(squad_id, (str, int))):
        raise InputError(path, f"must be text or an integer, got {type(squad_id).__name__}", row=where, field="id")
    if title is not None and not isinstance(title, str):
        raise InputError(path, f"must be text, got {type(title).__name__}", row=where, field="title")
    return {
        "row_idx": index,
        "squad_id": None if squad_id is None else str(squad_id),
        "title": title,
        "context": record["context"],
        "question": record["question"],
        "answer_texts": texts,
        "answer_starts": starts,
    }


def _local_records(path: Path) -> list[dict]:
    fmt = file_format(path, ("json", "jsonl", "parquet"))
    if fmt == "parquet":
        table = read_parquet(path)
        missing = {"context", "question"} - set(table.column_names)
        if missing:
            raise InputError(path, "Parquet file lacks the Hugging Face SQuAD columns", field=sorted(missing)[0])
        return table.to_pylist()
    text = read_utf8(path)
    if fmt == "jsonl":
        return read_jsonl(path, text)
    document = parse_json(path, text)
    if isinstance(document, dict) and "data" in document:
        return _official_json_records(path, document)
    if isinstance(document, list):
        return document
    raise InputError(path, "expected the official SQuAD JSON (data[].paragraphs[].qas[]) or an array of records")


def _hugging_face_records(dataset_id: str, split: str) -> tuple[list[dict], str]:
    try:
        import datasets  # optional: only users with a network need it
    except ImportError:
        raise UserError(
            "loading from Hugging Face needs the `datasets` package: pip install 'bias-warehouse[hf]'"
        ) from None
    try:
        loaded = datasets.load_dataset(dataset_id, split=split)
    except Exception as exc:  # the hub raises many types; all mean "could not load"
        raise UserError(f"could not load {dataset_id!r} split {split!r} from Hugging Face: {exc}") from None
    return loaded.to_list(), f"{HF_PREFIX}{dataset_id}@{loaded._fingerprint}"


def load_squad(
    con: duckdb.DuckDBPyConnection, source: str, *, split: str = "train", name: str | None = None
) -> IngestResult:
    """Load one SQuAD split into ``raw.squad_questions`` as a new version.

    Parameters
    ----------
    con : an open, writable warehouse connection.
    source : a path to a local file, or ``hf:squad`` (any ``hf:<dataset id>``) for the hub.
    split : the split to read (``train``, ``validation``); for the hub, the split it loads.
    name : the dataset name the rows are stored under, which corpora, pairs
        (``squad_split``) and query sets (``squad_questions:<name>``) refer to; default:
        the split. Demo data uses its own names (e.g. ``demo_train``) so it never becomes
        a version of the real ``train``.
    """
    stored = name or split
    if not stored or not isinstance(stored, str) or stored != stored.strip():
        raise UserError(f"SQuAD dataset name must be a non-empty string without surrounding spaces, got {stored!r}")
    if source.startswith(HF_PREFIX):
        records, source_path = _hugging_face_records(source[len(HF_PREFIX) :], split)
        canonical = "\n".join(json.dumps(r, sort_keys=True, ensure_ascii=False) for r in records)
        sha256, path = hashlib.sha256(canonical.encode()).hexdigest(), Path(source)
    else:
        path = Path(source).expanduser().resolve()
        sha256, source_path = (file_sha256(path) if path.is_file() else ""), str(path)
        records = None
    version_source = SourceFile("squad", stored, source_path, sha256, parameters={"split": split})
    if records is None:
        unchanged = unchanged_result(con, version_source) if sha256 else None
        if unchanged is not None:
            return unchanged
        records = _local_records(path)
    if not records:
        raise InputError(path, "contains no SQuAD rows")
    rows = [_validated_row(path, i, r) for i, r in enumerate(counted(records, "validating SQuAD rows", unit="rows"))]
    table = pa.Table.from_pylist(rows, schema=_SCHEMA)

    return write_version(con, version_source, table, raw_table="squad_questions", constants={"split": stored})
