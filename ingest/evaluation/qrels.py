"""Relevance judgments (qrels): read TREC, JSON or CSV files, check them, store one version.

Formats (relevance is a non-negative integer grade; 0 = judged not relevant):

- TREC qrels (``.qrels``, ``.trec``, ``.txt``): ``query_id iteration doc_id relevance`` per
  line, whitespace separated, as trec_eval reads them (the iteration column is ignored).
- CSV (``.csv``): a header with ``query_id``, ``doc_id`` and optionally ``relevance``
  (default 1).
- JSON (``.json``): a list of ``{"query_id": ..., "doc_id": ..., "relevance": ...}`` objects,
  or an object ``{query_id: {doc_id: relevance}}`` (the ranx / pytrec_eval layout).

Rows are numbered from 1: the n-th line of a TREC file, the n-th data row of a CSV file, the
n-th judgment of a JSON file.

Every query and document id is checked before anything is stored
(:func:`check_judgment_ids`), against the raw rows of the latest version of the dataset the
query set reads (:mod:`biaswh.ingest.retrieval.query_set_members`, which imported TREC runs are checked by as
well). The evaluation job checks again against the marts it reads (:func:`check_qrels_ids`).
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from biaswh.ingest.common.versions import IngestResult, SourceFile, latest_version, write_version
from biaswh.ingest.evaluation.corpus_qrels import map_corpus_judgments
from biaswh.ingest.evaluation.qrels_readers import TREC_SUFFIXES, Judgment, read_qrels
from biaswh.ingest.retrieval.query_set_members import query_set_members, query_set_table_name
from biaswh.warehouse.errors import InputError
from biaswh.warehouse.runs.registry import file_sha256

__all__ = ["TREC_SUFFIXES", "Judgment", "check_judgment_ids", "check_qrels_ids", "load_qrels", "read_qrels"]


def check_judgment_ids(con, path: Path, judgments: list[Judgment], query_set: str) -> None:
    """Refuse a judgment whose query is not in ``query_set`` or whose document is not in its corpus.

    Checked against the raw rows of the latest version of the query set's dataset
    (:func:`biaswh.ingest.retrieval.query_set_members.query_set_members`); the error names the file, row and field.
    """
    members = query_set_members(con, path, query_set)
    for judgment in judgments:
        members.check_query(path, judgment.query_id, row=judgment.row, field="query_id")
        members.check_document(path, judgment.doc_id, row=judgment.row, field="doc_id")


def load_qrels(con, path: str | Path, *, query_set: str, name: str | None = None) -> IngestResult:
    """Ingest a qrels file for ``query_set`` (config syntax, e.g. ``squad_questions:validation``).

    Every query and document id is checked before anything is written
    (:func:`check_judgment_ids`): a file naming an unknown one never becomes a version.
    """
    path = Path(path)
    stored_set = query_set_table_name(query_set)
    if query_set.startswith("queries:"):
        judgments = map_corpus_judgments(con, path, read_qrels(path, source_ids=True), query_set)
    else:
        judgments = read_qrels(path)
        check_judgment_ids(con, path, judgments, query_set)
    rows = pa.table(
        {
            "source_row": pa.array([j.row for j in judgments], pa.int32()),
            "query_id": [j.query_id for j in judgments],
            "doc_id": pa.array([j.doc_id for j in judgments], pa.int32()),
            "relevance": pa.array([j.relevance for j in judgments], pa.int32()),
        }
    )
    qrels_name = name or path.stem
    source = SourceFile("qrels", qrels_name, path, file_sha256(path), parameters={"query_set": stored_set})
    constants = {"qrels_name": qrels_name, "query_set": stored_set}
    return write_version(con, source, rows, raw_table="evaluation_qrels", constants=constants)


def latest_qrels(con, query_set: str) -> dict[str, int]:
    """Each qrels file judging ``query_set`` (stored name) with its latest version, by qrels name.

    As SQL parameters ``[list(latest), list(latest.values())]`` they fill :data:`LATEST_QRELS`.
    """
    names = con.execute(
        "select distinct qrels_name from raw.evaluation_qrels where query_set = ? order by qrels_name", [query_set]
    ).fetchall()
    return {name: latest_version(con, "qrels", name) for (name,) in names}


# The relation (qrels_name, source_version) of latest_qrels(), for a join in SQL.
LATEST_QRELS = "(select unnest(?) as qrels_name, unnest(?) as source_version)"


def check_qrels_ids(con, query_set: str) -> int:
    """Refuse the latest qrels of ``query_set`` (stored name) naming an unknown query or document.

    Queries are the query set's questions or pairs; documents are the corpus of its split.
    Returns the number of judgments checked. The error names the qrels file, row and field.
    """
    if query_set.startswith("squad_questions_"):
        split = query_set.removeprefix("squad_questions_")
        known_queries = (
            "select cast(row_idx as varchar) as query_id, split from marts.fct_squad_questions where split = ?"
        )
        parameter = split
    elif query_set.startswith("queries_"):
        known_queries = "select query_id, corpus as split from marts.fct_corpus_queries where query_set = ?"
        parameter = query_set.removeprefix("queries_")
    else:
        known_queries = (
            "select distinct pair_id as query_id, corpus_split as split from marts.fct_query_variants"
            " where pair_set = ?"
        )
        parameter = query_set
    pinned = latest_qrels(con, query_set)
    rows = con.execute(
        f"""
        with latest as (
            select q.*, v.source_path
            from raw.evaluation_qrels q
            inner join {LATEST_QRELS} as latest_qrels
                on q.qrels_name = latest_qrels.qrels_name and q.source_version = latest_qrels.source_version
            inner join raw.source_versions v
                on v.dataset = 'qrels' and v.source_name = q.qrels_name and v.version = q.source_version
            where q.query_set = ?
        ),
        queries as ({known_queries}),
        splits as (select distinct split from queries)
        select latest.source_path, latest.source_row, latest.query_id, latest.doc_id,
            queries.query_id is null as unknown_query,
            documents.doc_id is null as unknown_document,
        from latest
        left join queries on queries.query_id = latest.query_id
        left join marts.dim_corpus_documents documents
            on documents.doc_id = latest.doc_id and documents.split in (select split from splits)
        order by latest.source_path, latest.source_row
        """,
        [list(pinned), list(pinned.values()), query_set, parameter],
    ).fetchall()
    for source_path, row, query_id, doc_id, unknown_query, unknown_document in rows:
        if unknown_query:
            raise InputError(
                source_path, f"query {query_id!r} is not in query set {query_set}", row=row, field="query_id"
            )
        if unknown_document:
            raise InputError(
                source_path, f"document {doc_id} is not in the corpus of query set {query_set}", row=row, field="doc_id"
            )
    return len(rows)
