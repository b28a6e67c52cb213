"""Write a query set's retrieval outputs to ``raw.retrieval_*`` (the caller owns the transaction)."""

from __future__ import annotations

import json
import math
from datetime import datetime
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from biaswh.compute.retrieval.config import RetrievalConfig
from biaswh.compute.retrieval.hybrid import UnionHits
from biaswh.compute.retrieval.runner import Query, RetrieverOutput
from biaswh.ingest.common.embedding_cache import text_sha256
from biaswh.warehouse.database.transactions import registered, streaming_memory

RESULT_COLUMNS = ("run_id", "query_set", "retriever", "query_id", "variant", "corpus_split", "rank", "doc_id", "score")
# The raw tables a retrieval run writes (its results, with the run's records): what its job
# declares, and dbt derives the models to build after it from (warehouse/dbt_build/selection.py).
RETRIEVAL_TABLES = (
    "raw.retrieval_runs",
    "raw.retrieval_queries",
    "raw.retrieval_results",
    "raw.retrieval_query_stats",
    "raw.retrieval_relevant_documents",
    "raw.runs",
    "raw.run_inputs",
    "raw.run_sources",
)


def insert_rows(con, table: str, rows: pa.Table) -> None:
    """Insert ``rows`` into ``raw.<table>`` (the caller owns the transaction)."""
    with registered(con, "_retrieval_rows", rows):
        columns = ", ".join(rows.column_names)
        con.execute(f"insert into raw.{table} ({columns}) select {columns} from _retrieval_rows")


class ResultSpool:
    """Result rows kept in Parquet files in ``folder`` until one ``insert`` moves them all.

    DuckDB holds the rows of many insert statements in one transaction in memory until the
    commit (about 140 bytes a row: 7 GB for 50 M rows), while one ``insert ... select`` from
    Parquet streams them to the database file. The caller owns the folder and the transaction.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.n_files = 0

    def add(self, rows: pa.Table) -> None:
        pq.write_table(rows, self.folder / f"{self.n_files:06d}.parquet")
        self.n_files += 1

    def add_parquet(self, encoded: bytes) -> None:
        """Add rows a worker already encoded as a Parquet file (:func:`parquet_bytes`)."""
        (self.folder / f"{self.n_files:06d}.parquet").write_bytes(encoded)
        self.n_files += 1

    def insert(self, con) -> None:
        """Insert every spooled row (in the order added) into ``raw.retrieval_results``; empty the spool."""
        if self.n_files:
            files = [str(self.folder / f"{n:06d}.parquet") for n in range(self.n_files)]
            columns = ", ".join(RESULT_COLUMNS)
            with streaming_memory(con):  # an append: DuckDB's cache of the written blocks capped
                con.execute(
                    f"insert into raw.retrieval_results ({columns}) select {columns} from read_parquet(?)", [files]
                )
            for file in files:
                Path(file).unlink()
        self.n_files = 0


def parquet_bytes(rows: pa.Table) -> bytes:
    """``rows`` as the bytes of one Parquet file (what a Ray worker sends back to the driver)."""
    sink = pa.BufferOutputStream()
    pq.write_table(rows, sink)
    return sink.getvalue().to_pybytes()


def _constant(value: str, n: int) -> pa.Array:
    """``value`` ``n`` times, as a plain string array (a tenth of the CPU of ``take`` over n zero indices)."""
    return pa.repeat(pa.scalar(value, pa.string()), n)


def result_rows(run_id: str, query_set: str, queries: list[Query], output: RetrieverOutput) -> pa.Table:
    """The ``raw.retrieval_results`` rows (ranked hits) of one retriever's output over ``queries``."""
    counts = np.asarray([len(h.doc_ids) for h in output.hits], np.int64)
    # Each query's values taken once per hit (no Python object per result row).
    of_query = pa.array(np.repeat(np.arange(len(queries), dtype=np.int64), counts))
    per_query = lambda values: pa.array(values, pa.string()).take(of_query)  # noqa: E731
    doc_ids = np.concatenate([h.doc_ids for h in output.hits]) if output.hits else np.empty(0, np.int64)
    if output.hits and isinstance(output.hits[0], UnionHits):
        ranks = np.concatenate([h.ranks for h in output.hits])
        scores = pa.nulls(len(doc_ids), pa.float64())
    else:
        ranks = np.arange(1, len(doc_ids) + 1) - np.repeat(np.cumsum(counts) - counts, counts)
        scores = pa.array(np.concatenate([h.scores for h in output.hits]) if output.hits else [], pa.float64())
    n = len(doc_ids)
    return pa.table(
        {
            "run_id": _constant(run_id, n),
            "query_set": _constant(query_set, n),
            "retriever": _constant(output.retriever, n),
            "query_id": per_query([q.query_id for q in queries]),
            "variant": per_query([q.variant for q in queries]),
            "corpus_split": per_query([q.corpus_split for q in queries]),
            "rank": pa.array(np.asarray(ranks, np.int32)),
            "doc_id": pa.array(np.asarray(doc_ids, np.int32)),
            "score": scores,
        }
    )


def write_outputs(
    con,
    *,
    run_id: str,
    query_set: str,
    queries: list[Query],
    outputs: list[RetrieverOutput],
    config: RetrievalConfig,
    record: dict,
    created_at: datetime,
    query_set_kind: str = "questions",
) -> int:
    """Insert the queries, every retriever's ranked hits, per-query stats and per-retriever runs.

    ``query_set_kind``: ``pairs`` for a pair set (the dialect marts read those), else
    ``questions``. Returns the number of result rows written.
    """
    written = write_query_rows(
        con,
        run_id=run_id,
        query_set=query_set,
        queries=queries,
        outputs=outputs,
        config=config,
        query_set_kind=query_set_kind,
    )
    write_retriever_runs(
        con,
        run_id=run_id,
        query_set=query_set,
        corpus_splits={q.corpus_split for q in queries},
        n_queries=len(queries),
        outputs=outputs,
        n_answered={o.retriever: sum(len(h.doc_ids) > 0 for h in o.hits) for o in outputs},
        config=config,
        record=record,
        created_at=created_at,
    )
    return written


def query_rows(run_id: str, query_set: str, queries: list[Query], query_set_kind: str) -> pa.Table:
    """The ``raw.retrieval_queries`` rows of ``queries``."""
    return pa.table(
        {
            "run_id": [run_id] * len(queries),
            "query_set": [query_set] * len(queries),
            "query_id": [q.query_id for q in queries],
            "variant": [q.variant for q in queries],
            "corpus_split": [q.corpus_split for q in queries],
            "query_text": [q.text for q in queries],
            "text_sha256": [text_sha256(q.text) for q in queries],
            "relevant_doc_id": pa.array([q.relevant_doc_id for q in queries], pa.int32()),
            "query_set_kind": [query_set_kind] * len(queries),
        }
    )


def query_stats_rows(
    run_id: str, query_set: str, queries: list[Query], output: RetrieverOutput, config: RetrievalConfig
) -> pa.Table:
    """The ``raw.retrieval_query_stats`` rows of one retriever's output over ``queries``."""
    timing = "per_query" if config.timing == "per_query" else "batch_amortised"
    return pa.table(
        {
            "run_id": [run_id] * len(queries),
            "query_set": [query_set] * len(queries),
            "retriever": [output.retriever] * len(queries),
            "query_id": [q.query_id for q in queries],
            "variant": [q.variant for q in queries],
            "corpus_split": [q.corpus_split for q in queries],
            "n_hits": pa.array([len(h.doc_ids) for h in output.hits], pa.int32()),
            "latency_ms": pa.array(
                [None if v is None or math.isnan(v) else float(v) for v in output.latency_ms], pa.float64()
            ),
            "timing": [timing] * len(queries),
            "reason": pa.array([h.reason for h in output.hits], pa.string()),
        }
    )


def write_query_rows(
    con,
    *,
    run_id: str,
    query_set: str,
    queries: list[Query],
    outputs: list[RetrieverOutput],
    config: RetrievalConfig,
    query_set_kind: str = "questions",
    results_spool: ResultSpool | None = None,
) -> int:
    """Insert the queries, every retriever's ranked hits and per-query stats (all of a query set, or a chunk).

    With ``results_spool`` the ranked hits go to the spool, to be inserted by its
    :meth:`ResultSpool.insert`. Returns the number of result rows written.
    """
    insert_rows(con, "retrieval_queries", query_rows(run_id, query_set, queries, query_set_kind))
    written = 0
    for output in outputs:
        results = result_rows(run_id, query_set, queries, output)
        if results_spool is None:
            insert_rows(con, "retrieval_results", results)
        else:
            results_spool.add(results)
        written += results.num_rows
        del results
        insert_rows(con, "retrieval_query_stats", query_stats_rows(run_id, query_set, queries, output, config))
    return written


def write_retriever_runs(
    con,
    *,
    run_id: str,
    query_set: str,
    corpus_splits: set[str],
    n_queries: int,
    outputs: list[RetrieverOutput],
    n_answered: dict[str, int],
    config: RetrievalConfig,
    record: dict,
    created_at: datetime,
) -> None:
    """Insert one ``raw.retrieval_runs`` row per retriever of a query set.

    ``n_answered``: per retriever, how many queries got at least one hit; ``outputs`` give
    the wall time and settings (their hits are not read).
    """
    for output in outputs:
        details = output.details
        con.execute(
            "insert into raw.retrieval_runs values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                run_id,
                query_set,
                output.retriever,
                output.family,
                sorted(corpus_splits),
                config.depth,
                n_queries,
                n_answered[output.retriever],
                details.get("fusion_weight_bm25"),
                details.get("fusion_weight_dense"),
                details.get("rrf_k"),
                config.ann_index if output.family == "dense" else None,
                details.get("ann_recall"),
                output.seconds,
                json.dumps(record | {"retriever_details": details}, default=str, sort_keys=True),
                created_at,
            ],
        )


def write_relevant_documents(con, *, run_id: str, query_sets: dict[str, list[Query]], corpora: dict) -> int:
    """Record the text of every document the run's queries name as relevant (for error examples)."""
    wanted = sorted(
        {
            (q.corpus_split, q.relevant_doc_id)
            for queries in query_sets.values()
            for q in queries
            if q.relevant_doc_id is not None and q.corpus_split in corpora
        }
    )
    position = {split: dict(zip(c.doc_ids, range(len(c.doc_ids)))) for split, c in corpora.items()}
    rows = [
        (split, doc_id, corpora[split].texts[position[split][doc_id]])
        for split, doc_id in wanted
        if doc_id in position[split]
    ]
    if rows:
        insert_rows(
            con,
            "retrieval_relevant_documents",
            pa.table(
                {
                    "run_id": [run_id] * len(rows),
                    "corpus_split": [r[0] for r in rows],
                    "doc_id": pa.array([r[1] for r in rows], pa.int32()),
                    "document_text": [r[2] for r in rows],
                }
            ),
        )
    return len(rows)
