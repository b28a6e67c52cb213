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
query set reads: in a study the ``[[ingest]]`` steps run before any ``dbt build``, so the
marts may not hold that version yet. Document ids are what ``marts.dim_corpus_documents``
assigns (0 .. the number of distinct normalised contexts - 1, by dbt's own ``normalise_text``
macro). The evaluation job checks again against the marts it reads (:func:`check_qrels_ids`).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import jinja2
import pyarrow as pa

from ingest.corpus_qrels import map_corpus_judgments
from ingest.qrels_readers import TREC_SUFFIXES, Judgment, read_qrels
from ingest.versions import IngestResult, ingest_version
from warehouse.errors import InputError, UserError
from warehouse.runs import file_sha256
from warehouse.settings import DBT_PROJECT_DIR
from warehouse.transactions import registered

__all__ = ["TREC_SUFFIXES", "Judgment", "check_judgment_ids", "check_qrels_ids", "load_qrels", "read_qrels"]


def query_set_table_name(query_set: str) -> str:
    """The name the retrieval job stores a configured query set under (``squad_questions:validation`` ->
    ``squad_questions_validation``, ``pairs:<name>`` -> ``<name>``, ``queries:<name>`` -> ``queries_<name>``)."""
    if query_set.startswith("squad_questions:"):
        return "squad_questions_" + query_set.split(":", 1)[1]
    if query_set.startswith("pairs:"):
        return query_set.split(":", 1)[1]
    if query_set.startswith("queries:"):
        return "queries_" + query_set.split(":", 1)[1]
    raise UserError(
        f"qrels query_set must be 'squad_questions:<split>', 'pairs:<name>' or 'queries:<name>', got {query_set!r}"
    )


@lru_cache(maxsize=1)
def _normalised_context_sql() -> str:
    """dbt's ``normalise_text('context')`` as plain SQL, rendered from the macro itself (one definition)."""
    macro = (DBT_PROJECT_DIR / "macros" / "normalise_text.sql").read_text(encoding="utf-8")
    return jinja2.Environment().from_string(macro + "{{ normalise_text('context') }}").render().strip()


def _latest_version(con, dataset: str, source_name: str) -> int | None:
    row = con.execute(
        "select max(version) from raw.source_versions where dataset = ? and source_name = ?", [dataset, source_name]
    ).fetchone()
    return row[0]


def _squad_ids(con, path: Path, query_set: str, split: str, *, with_queries: bool) -> tuple[set[str], int]:
    """The question ids (row_idx) and the number of corpus documents of SQuAD dataset ``split``'s latest version."""
    version = _latest_version(con, "squad", split)
    if version is None:
        raise UserError(
            f"{path}: qrels for query set {query_set} need the SQuAD dataset {split!r}, which is not"
            f' ingested: ingest it first (a source = "squad" [[ingest]] step with name = "{split}"'
            " before the qrels step, or `biaswh ingest squad FILE --name ...`)"
        )
    n_documents = con.execute(
        f"select count(distinct {_normalised_context_sql()}) from raw.squad_questions"
        " where split = ? and source_version = ?",
        [split, version],
    ).fetchone()[0]
    queries = set()
    if with_queries:
        queries = {
            str(r[0])
            for r in con.execute(
                "select row_idx from raw.squad_questions where split = ? and source_version = ?", [split, version]
            ).fetchall()
        }
    return queries, n_documents


def check_judgment_ids(con, path: Path, judgments: list[Judgment], query_set: str) -> None:
    """Refuse a judgment whose query is not in ``query_set`` or whose document is not in its corpus.

    Checked against the raw rows of the latest version of the query set's dataset (see the
    module docstring); the error names the file, the row and the field.
    """
    stored = query_set_table_name(query_set)
    if query_set.startswith("squad_questions:"):
        queries, n_documents = _squad_ids(con, path, query_set, query_set.split(":", 1)[1], with_queries=True)
    else:
        version = _latest_version(con, "query_pairs", stored)
        if version is None:
            raise UserError(
                f"{path}: qrels for query set {query_set} need the pair set {stored!r}, which is not"
                ' ingested: ingest it first (a source = "pairs" [[ingest]] step before the qrels step)'
            )
        rows = con.execute(
            "select distinct pair_id, squad_split from raw.query_pair_variants"
            " where pair_set = ? and source_version = ?",
            [stored, version],
        ).fetchall()
        queries = {r[0] for r in rows}
        split = rows[0][1]  # a pair set indexes one SQuAD dataset (load_pairs' squad_split)
        n_documents = _squad_ids(con, path, query_set, split, with_queries=False)[1]
    for judgment in judgments:
        if judgment.query_id not in queries:
            raise InputError(
                path, f"query {judgment.query_id!r} is not in query set {query_set}", row=judgment.row, field="query_id"
            )
        if judgment.doc_id >= n_documents:
            raise InputError(
                path,
                f"document {judgment.doc_id} is not in the corpus of query set {query_set}"
                f" ({n_documents} documents, ids 0 to {n_documents - 1})",
                row=judgment.row,
                field="doc_id",
            )


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
    sha = file_sha256(path)

    def write_rows(run, version: int) -> int:
        table = pa.table(
            {
                "run_id": [run.run_id] * len(judgments),
                "source_sha256": [sha] * len(judgments),
                "source_version": pa.array([version] * len(judgments), pa.int32()),
                "qrels_name": [name or path.stem] * len(judgments),
                "query_set": [stored_set] * len(judgments),
                "source_row": pa.array([j.row for j in judgments], pa.int32()),
                "query_id": [j.query_id for j in judgments],
                "doc_id": pa.array([j.doc_id for j in judgments], pa.int32()),
                "relevance": pa.array([j.relevance for j in judgments], pa.int32()),
            }
        )
        with registered(con, "_qrels_rows", table):
            con.execute("insert into raw.evaluation_qrels by name select * from _qrels_rows")
        return len(judgments)

    return ingest_version(
        con,
        dataset="qrels",
        source_name=name or path.stem,
        source_path=path,
        source_sha256=sha,
        parameters={"query_set": stored_set},
        write_rows=write_rows,
    )


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
    rows = con.execute(
        f"""
        with latest as (
            select q.*, v.source_path
            from raw.evaluation_qrels q
            inner join raw.source_versions v
                on v.dataset = 'qrels' and v.source_name = q.qrels_name and v.version = q.source_version
            where q.query_set = ?
              and q.source_version = (select max(version) from raw.source_versions
                                      where dataset = 'qrels' and source_name = q.qrels_name)
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
        [query_set, parameter],
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
