"""Ingest a retrieval corpus and its query sets from any layout (:mod:`biaswh.ingest.retrieval.corpus_readers`).

A corpus is named (``name``, default the file or folder name) and versioned like every
source: the same content again is a no-op, changed content a new version. Documents keep the
source's own ids (``source_doc_id``); ``doc_id`` numbers them from 0 in source order, and the
warehouse's results and qrels hold it. A query set names the corpus it asks (``corpus``).
Everything is checked before anything is stored; the study config reads the source where it
lives (e.g. ``/data/my_corpus/``), nothing is copied.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pyarrow as pa

from biaswh.ingest.common.versions import IngestResult, SourceFile, write_version
from biaswh.ingest.retrieval.corpus_readers import TEXT_SUFFIXES, Entry, read_documents, read_queries
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.registry import file_sha256


def source_sha256(path: Path) -> str:
    """A file's sha256, or for a folder the sha256 of its files' relative paths and sha256s."""
    if path.is_file():
        return file_sha256(path)
    digest = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        digest.update(f"{file.relative_to(path).as_posix()}\0{file_sha256(file)}\n".encode())
    return digest.hexdigest()


def _source_file(path: Path) -> Path:
    """The file a BEIR folder's corpus or queries come from, else the path itself."""
    for name in ("corpus.jsonl", "queries.jsonl"):
        if path.is_dir() and (path / name).is_file():
            return path / name
    return path


def _refuse_squad_name(con, name: str) -> None:
    found = con.execute(
        "select count(*) from raw.source_versions where dataset = 'squad' and source_name = ?", [name]
    ).fetchone()[0]
    if found:
        raise UserError(f"corpus name {name!r} is a SQuAD dataset's name: give the corpus another name")


def load_corpus(
    con,
    path: str | Path,
    *,
    name: str | None = None,
    unit: str = "file",
    id_column: str | None = None,
    text_column: str = "text",
    title_column: str | None = None,
) -> IngestResult:
    """Ingest the documents at ``path`` as corpus ``name`` (one new version, or nothing if unchanged)."""
    path = Path(path)
    name = name or (path.stem if path.is_file() else path.name)
    documents = read_documents(path, unit=unit, id_column=id_column, text_column=text_column, title_column=title_column)
    _refuse_squad_name(con, name)
    source = _source_file(path) if path.is_dir() and (path / "corpus.jsonl").is_file() else path
    sha = source_sha256(source)
    is_text = path.is_dir() or path.suffix.lower() in TEXT_SUFFIXES

    rows = pa.table(
        {
            "source_row": pa.array([d.row for d in documents], pa.int32()),
            "source_file": [d.source_file for d in documents],
            "doc_id": pa.array(range(len(documents)), pa.int32()),
            "source_doc_id": [d.source_id for d in documents],
            "title": [d.title for d in documents],
            "document_text": [d.text for d in documents],
        }
    )
    parameters = {"unit": unit if is_text else None, "id_column": id_column, "text_column": text_column}
    version_source = SourceFile("corpus", name, source, sha, parameters=parameters)
    return write_version(con, version_source, rows, raw_table="corpus_documents", constants={"corpus": name})


def load_corpus_queries(
    con,
    path: str | Path,
    *,
    corpus: str,
    name: str | None = None,
    id_column: str | None = None,
    text_column: str = "text",
    format: str | None = None,
    topic_field: str = "title",
) -> IngestResult:
    """Ingest the queries at ``path`` as query set ``name`` over corpus ``corpus`` (ingested first).

    ``format = "trec_topics"`` (or a file opening with ``<top>``): a TREC topics file, its
    ``topic_field`` (title, desc or narr) the query text.
    """
    path = Path(path)
    name = name or (path.stem if path.is_file() else path.name)
    queries: list[Entry] = read_queries(
        path, id_column=id_column, text_column=text_column, format=format, topic_field=topic_field
    )
    known = con.execute(
        "select count(*) from raw.source_versions where dataset = 'corpus' and source_name = ?", [corpus]
    ).fetchone()[0]
    if not known:
        raise UserError(
            f'{path}: the query set {name!r} asks corpus {corpus!r}, which is not ingested: add a source = "corpus"'
            " [[ingest]] step for it before this one"
        )
    rows = pa.table(
        {
            "source_row": pa.array([q.row for q in queries], pa.int32()),
            "query_id": [q.source_id for q in queries],
            "query_text": [q.text for q in queries],
        }
    )
    parameters = {
        "corpus": corpus,
        "id_column": id_column,
        "text_column": text_column,
        **({"format": format} if format else {}),
        **({"topic_field": topic_field} if topic_field != "title" else {}),
    }
    query_file = _source_file(path)
    source = SourceFile("corpus_queries", name, query_file, file_sha256(query_file), parameters)
    constants = {"query_set": name, "corpus": corpus}
    return write_version(con, source, rows, raw_table="corpus_queries", constants=constants)
