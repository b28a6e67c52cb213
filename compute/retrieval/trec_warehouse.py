"""TREC run files to and from the warehouse's ``raw.retrieval_results``.

A TREC ``qid`` is ``<query_id>/<variant>`` (e.g. ``17/aae``), so one file carries every
variant of a query set; the tag is the retriever. An imported file becomes its own run
(kind ``trec_import``) with the file's sha256, so an external system's results (e.g. a
ranx or Pyserini run) sit beside ours for evaluation.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pyarrow as pa

from biaswh.compute.retrieval.trec import TrecRow, read_run, write_run
from biaswh.ingest.common.readers import int32_value
from biaswh.ingest.retrieval.query_set_members import QuerySetMembers, query_set_members, query_set_table_name
from biaswh.warehouse.database.transactions import registered, transaction
from biaswh.warehouse.errors import InputError, UserError
from biaswh.warehouse.runs.registry import file_sha256, start_run


def export_trec(con, *, run_id: str, retriever: str, path: str | Path, query_set: str | None = None) -> int:
    """Write one retriever's results of a run as a TREC run file; return the number of lines."""
    rows = con.execute(
        "select query_id || '/' || variant, doc_id, rank, score from raw.retrieval_results"
        " where run_id = ? and retriever = ? and (? is null or query_set = ?)"
        " order by query_set, query_id, variant, rank, doc_id",
        [run_id, retriever, query_set, query_set],
    ).fetchall()
    if not rows:
        raise UserError(
            f"no retrieval results for run {run_id!r}, retriever {retriever!r}"
            + (f", query set {query_set!r}" if query_set else "")
        )
    sets = con.execute(
        "select count(distinct query_set) from raw.retrieval_results where run_id = ? and"
        " retriever = ? and (? is null or query_set = ?)",
        [run_id, retriever, query_set, query_set],
    ).fetchone()[0]
    if sets > 1:
        raise UserError(f"run {run_id!r} has {sets} query sets for {retriever!r}: name one with --query-set")
    # hybrid_union has no score; its rank order is its score.
    return write_run(
        path,
        (
            TrecRow(qid, str(doc), rank, -float(rank) if score is None else score, retriever.replace(" ", "_"))
            for qid, doc, rank, score in rows
        ),
    )


def _variant(path: Path, members: QuerySetMembers, qid: str, line: int) -> tuple[str, str]:
    """(query id, variant) of a TREC ``qid``: ``<query_id>/<variant>``, or a bare query id when the
    query is asked in one variant only (a run written by another tool)."""
    query_id, slash, variant = qid.rpartition("/")
    if not slash:
        query_id = qid
    members.check_query(path, query_id, row=line, field="qid")
    variants = members.variants[query_id]
    if not slash:
        if len(variants) != 1:
            raise InputError(
                path,
                f"qid {qid!r} names no variant; write '<query_id>/<variant>' (query {query_id!r} has variants"
                f" {', '.join(sorted(variants))})",
                row=line,
                field="qid",
            )
        return query_id, next(iter(variants))
    if variant not in variants:
        raise InputError(
            path,
            f"variant {variant!r} is not a variant of query {query_id!r} in query set {members.query_set}"
            f" (variants: {', '.join(sorted(variants))})",
            row=line,
            field="qid",
        )
    return query_id, variant


def import_trec(con, path: str | Path, *, query_set: str, corpus_split: str | None = None) -> tuple[str, int]:
    """Load a TREC run file into ``raw.retrieval_results`` as a new run; return (run_id, rows).

    The retriever is ``trec:<tag>``, so imported runs never pass for our own retrievers.
    ``query_set`` is the stored name (``squad_questions_<split>``, a pair set, ``queries_<name>``)
    or the config syntax. Before anything is stored, every qid is checked against the query
    set's queries and variants, and every docid against its corpus (the checks qrels get,
    :mod:`biaswh.ingest.retrieval.query_set_members`); a document or a rank listed twice for one query is
    refused too, each with its line. ``corpus_split``, when given, must be the query set's corpus.
    """
    path = Path(path)
    rows = read_run(path)
    if not rows:
        raise InputError(path, "the run file has no lines")
    members = query_set_members(con, path, query_set)
    if corpus_split is not None and corpus_split != members.corpus:
        raise InputError(
            path,
            f"--corpus-split {corpus_split!r} is not the corpus of query set {members.query_set}"
            f" ({members.corpus!r}); leave it out",
            field="corpus_split",
        )
    query_set, corpus_split = query_set_table_name(members.query_set), members.corpus
    records = []
    seen = set()
    for row in rows:
        line = row.line
        query_id, variant = _variant(path, members, row.query_id, line)
        if not row.doc_id.lstrip("+-").isdigit():
            raise InputError(path, f"docid {row.doc_id!r} is not a corpus doc_id (an integer)", row=line, field="docid")
        doc_id = int32_value(path, row.doc_id, row=line, field="docid")
        members.check_document(path, doc_id, row=line, field="docid")
        for field, value in (("docid", doc_id), ("rank", row.rank)):
            key = (row.tag, query_id, variant, field, value)
            if key in seen:
                raise InputError(
                    path, f"{field} {value} is listed twice for query {row.query_id}", row=line, field=field
                )
            seen.add(key)
        if row.rank < 1:
            raise InputError(path, f"rank {row.rank} is below 1", row=line, field="rank")
        records.append((f"trec:{row.tag}", query_id, variant, row.rank, doc_id, row.score))
    with transaction(con):
        run = start_run(
            con,
            kind="trec_import",
            name=Path(path).name,
            parameters={"path": str(path), "query_set": query_set, "corpus_split": corpus_split},
        )
        run.add_source(path, file_sha256(path))
        table = pa.table(
            {
                "run_id": [run.run_id] * len(records),
                "query_set": [query_set] * len(records),
                "retriever": [r[0] for r in records],
                "query_id": [r[1] for r in records],
                "variant": [r[2] for r in records],
                "corpus_split": [corpus_split] * len(records),
                "rank": pa.array([r[3] for r in records], pa.int32()),
                "doc_id": pa.array([r[4] for r in records], pa.int32()),
                "score": pa.array([r[5] for r in records], pa.float64()),
            }
        )
        with registered(con, "_trec_rows", table):
            con.execute("insert into raw.retrieval_results by name select * from _trec_rows")
        run.row_counts["retrieval_results"] = len(records)
        run.finish(f"imported at {datetime.now(timezone.utc).isoformat(timespec='seconds')}")
    return run.run_id, len(records)
