"""Read qrels files: TREC, BEIR TSV, CSV and JSON.

The formats are described in :mod:`biaswh.ingest.evaluation.qrels`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from biaswh.ingest.common.readers import csv_rows, int32_value, parse_json, read_utf8
from biaswh.warehouse.errors import InputError

TREC_SUFFIXES = (".qrels", ".trec", ".txt")


@dataclass(frozen=True)
class Judgment:
    """One relevance judgment; ``row`` is where it is in its file."""

    row: int
    query_id: str
    doc_id: int | str  # a corpus doc_id; the source's own id (a string) as read for a corpus query set
    relevance: int


def _source_judgment(path: Path, row: int, query_id, doc_id, relevance) -> Judgment:
    """A judgment whose document id is the corpus source's own id (mapped to a doc_id later)."""
    if query_id is None or not str(query_id).strip():
        raise InputError(path, "missing query id", row=row, field="query_id")
    if doc_id is None or str(doc_id).strip() == "":
        raise InputError(path, "missing document id", row=row, field="doc_id")
    return Judgment(
        row,
        str(query_id).strip(),
        str(int(doc_id) if isinstance(doc_id, float) and doc_id.is_integer() else doc_id).strip(),
        int32_value(path, relevance, row=row, field="relevance", minimum=0),
    )


def _judgment(path: Path, row: int, query_id, doc_id, relevance) -> Judgment:
    if query_id is None or not str(query_id).strip():
        raise InputError(path, "missing query id", row=row, field="query_id")
    if doc_id is None or str(doc_id).strip() == "":
        raise InputError(path, "missing document id", row=row, field="doc_id")
    return Judgment(
        row,
        str(query_id).strip(),
        int32_value(path, doc_id, row=row, field="doc_id", minimum=0),
        int32_value(path, relevance, row=row, field="relevance", minimum=0),
    )


def _read_trec(path: Path, text: str, make=_judgment) -> list[Judgment]:
    judgments = []
    for line_number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split()
        if len(fields) != 4:
            raise InputError(
                path,
                f"expected 4 fields 'query_id iteration doc_id relevance', found {len(fields)}",
                row=line_number,
                field="line",
            )
        judgments.append(make(path, line_number, fields[0], fields[2], fields[3]))
    return judgments


def _read_csv(path: Path, text: str, make=_judgment) -> list[Judgment]:
    header, records = csv_rows(path, text)
    missing = {"query_id", "doc_id"} - set(header)
    if missing:
        raise InputError(
            path, "the CSV header needs query_id and doc_id (relevance optional)", field=sorted(missing)[0]
        )
    return [
        make(path, number, record.get("query_id"), record.get("doc_id"), record.get("relevance") or 1)
        for number, record in enumerate(records, start=1)
    ]


def _read_json(path: Path, text: str, make=_judgment) -> list[Judgment]:
    document = parse_json(path, text)
    if isinstance(document, dict):  # {query_id: {doc_id: relevance}}
        records = []
        for query_id, documents in document.items():
            if not isinstance(documents, dict):
                raise InputError(
                    path, "expected {doc_id: relevance} for each query", row=len(records) + 1, field=str(query_id)
                )
            records += [{"query_id": query_id, "doc_id": d, "relevance": r} for d, r in documents.items()]
    elif isinstance(document, list):
        records = document
    else:
        raise InputError(path, "expected a list of judgments or an object {query_id: {doc_id: relevance}}")
    judgments = []
    for number, record in enumerate(records, start=1):
        if not isinstance(record, dict):
            raise InputError(path, "a judgment must be an object", row=number)
        judgments.append(make(path, number, record.get("query_id"), record.get("doc_id"), record.get("relevance", 1)))
    return judgments


def _read_beir_tsv(path: Path, text: str, make=_judgment) -> list[Judgment]:
    """BEIR ``qrels/<split>.tsv``: ``query-id<TAB>corpus-id<TAB>score`` under an optional header."""
    judgments = []
    for line_number, line in enumerate(text.splitlines(), start=1):
        fields = line.split("\t")
        if not line.strip() or (line_number == 1 and fields[0].strip().lower() in ("query-id", "query_id", "qid")):
            continue
        if len(fields) != 3:
            found = len(fields)
            raise InputError(path, f"expected 3 fields 'query-id corpus-id score', found {found}", row=line_number)
        judgments.append(make(path, line_number, fields[0], fields[1], fields[2].strip()))
    return judgments


def read_qrels(path: str | Path, *, source_ids: bool = False) -> list[Judgment]:
    """Every judgment of a qrels file; a duplicate (query, document) pair is refused with both rows.

    ``source_ids``: document ids are the corpus source's own (strings), as for a ``queries:`` set.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "no such file")
    suffix = path.suffix.lower()
    if suffix not in TREC_SUFFIXES + (".csv", ".json", ".tsv"):
        raise InputError(
            path,
            f"unsupported qrels file type '{suffix or '(none)'}'; expected .qrels, .trec, .txt (TREC),"
            " .tsv (BEIR), .csv or .json",
        )
    text = read_utf8(path)
    readers = {".csv": _read_csv, ".json": _read_json, ".tsv": _read_beir_tsv}
    judgments = readers.get(suffix, _read_trec)(path, text, _source_judgment if source_ids else _judgment)
    if not judgments:
        raise InputError(path, "no judgments in the file")
    seen: dict[tuple[str, int | str], int] = {}
    for judgment in judgments:
        key = (judgment.query_id, judgment.doc_id)
        if key in seen:
            raise InputError(
                path,
                f"duplicate judgment for query {judgment.query_id!r} and document "
                f"{judgment.doc_id} (first at row {seen[key]})",
                row=judgment.row,
                field="doc_id",
            )
        seen[key] = judgment.row
    return judgments
