"""Write a query set's retrieval outputs to ``raw.retrieval_*`` (the caller owns the transaction)."""

from __future__ import annotations

import json
import math
from datetime import datetime

import numpy as np
import pyarrow as pa

from ingest.retrieval.config import RetrievalConfig
from ingest.retrieval.hybrid import UnionHits
from ingest.retrieval.runner import Query, RetrieverOutput
from ingest.retrieval.vector_store import text_sha256


def _insert(con, table: str, rows: pa.Table) -> None:
    con.register("_retrieval_rows", rows)
    try:
        columns = ", ".join(rows.column_names)
        con.execute(f"insert into raw.{table} ({columns}) select {columns} from _retrieval_rows")
    finally:
        con.unregister("_retrieval_rows")


def _result_rows(run_id: str, query_set: str, queries: list[Query], output: RetrieverOutput) -> pa.Table:
    counts = [len(h.doc_ids) for h in output.hits]
    repeat = lambda values: np.repeat(np.asarray(values, dtype=object), counts)  # noqa: E731
    doc_ids = np.concatenate([h.doc_ids for h in output.hits]) if output.hits else np.empty(0, np.int64)
    if output.hits and isinstance(output.hits[0], UnionHits):
        ranks = np.concatenate([h.ranks for h in output.hits])
        scores = pa.nulls(len(doc_ids), pa.float64())
    else:
        ranks = np.concatenate([np.arange(1, n + 1) for n in counts]) if counts else np.empty(0, np.int64)
        scores = pa.array(np.concatenate([h.scores for h in output.hits]) if output.hits else [], pa.float64())
    n = len(doc_ids)
    return pa.table({
        "run_id": pa.array([run_id] * n, pa.string()),
        "query_set": pa.array([query_set] * n, pa.string()),
        "retriever": pa.array([output.retriever] * n, pa.string()),
        "query_id": pa.array(repeat([q.query_id for q in queries]).tolist(), pa.string()),
        "variant": pa.array(repeat([q.variant for q in queries]).tolist(), pa.string()),
        "corpus_split": pa.array(repeat([q.corpus_split for q in queries]).tolist(), pa.string()),
        "rank": pa.array(np.asarray(ranks, np.int32)),
        "doc_id": pa.array(np.asarray(doc_ids, np.int32)),
        "score": scores,
    })


def write_outputs(con, *, run_id: str, query_set: str, queries: list[Query], outputs: list[RetrieverOutput],
                  config: RetrievalConfig, record: dict, created_at: datetime,
                  query_set_kind: str = "questions") -> int:
    """Insert the queries, every retriever's ranked hits, per-query stats and per-retriever runs.

    ``query_set_kind``: ``pairs`` for a pair set (the dialect marts read those), else
    ``questions``. Returns the number of result rows written.
    """
    _insert(con, "retrieval_queries", pa.table({
        "run_id": [run_id] * len(queries), "query_set": [query_set] * len(queries),
        "query_id": [q.query_id for q in queries], "variant": [q.variant for q in queries],
        "corpus_split": [q.corpus_split for q in queries], "query_text": [q.text for q in queries],
        "text_sha256": [text_sha256(q.text) for q in queries],
        "relevant_doc_id": pa.array([q.relevant_doc_id for q in queries], pa.int32()),
        "query_set_kind": [query_set_kind] * len(queries),
    }))
    timing = "per_query" if config.timing == "per_query" else "batch_amortised"
    written = 0
    for output in outputs:
        results = _result_rows(run_id, query_set, queries, output)
        _insert(con, "retrieval_results", results)
        written += results.num_rows
        _insert(con, "retrieval_query_stats", pa.table({
            "run_id": [run_id] * len(queries), "query_set": [query_set] * len(queries),
            "retriever": [output.retriever] * len(queries),
            "query_id": [q.query_id for q in queries], "variant": [q.variant for q in queries],
            "corpus_split": [q.corpus_split for q in queries],
            "n_hits": pa.array([len(h.doc_ids) for h in output.hits], pa.int32()),
            "latency_ms": pa.array([None if v is None or math.isnan(v) else float(v) for v in output.latency_ms],
                                   pa.float64()),
            "timing": [timing] * len(queries),
            "reason": pa.array([h.reason for h in output.hits], pa.string()),
        }))
        details = output.details
        con.execute(
            "insert into raw.retrieval_runs values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [run_id, query_set, output.retriever, output.family, sorted({q.corpus_split for q in queries}),
             config.depth, len(queries), sum(len(h.doc_ids) > 0 for h in output.hits),
             details.get("fusion_weight_bm25"), details.get("fusion_weight_dense"), details.get("rrf_k"),
             config.ann_index if output.family == "dense" else None, details.get("ann_recall"), output.seconds,
             json.dumps(record | {"retriever_details": details}, default=str, sort_keys=True), created_at])
    return written


def write_relevant_documents(con, *, run_id: str, query_sets: dict[str, list[Query]], corpora: dict) -> int:
    """Record the text of every document the run's queries name as relevant (for error examples)."""
    wanted = sorted({(q.corpus_split, q.relevant_doc_id) for queries in query_sets.values() for q in queries
                     if q.relevant_doc_id is not None and q.corpus_split in corpora})
    position = {split: dict(zip(c.doc_ids, range(len(c.doc_ids)))) for split, c in corpora.items()}
    rows = [(split, doc_id, corpora[split].texts[position[split][doc_id]]) for split, doc_id in wanted
            if doc_id in position[split]]
    if rows:
        _insert(con, "retrieval_relevant_documents", pa.table({
            "run_id": [run_id] * len(rows), "corpus_split": [r[0] for r in rows],
            "doc_id": pa.array([r[1] for r in rows], pa.int32()), "document_text": [r[2] for r in rows]}))
    return len(rows)
