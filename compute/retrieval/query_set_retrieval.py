"""One query set retrieved chunk by chunk on either compute engine, its rows written to ``raw.retrieval_*``.

What the ``retrieval`` job (:mod:`biaswh.compute.retrieval.steps`) and the evaluation job
(:mod:`biaswh.compute.evaluation.steps`) both run: BM25-only configurations are retrieved and written
:data:`QUERY_CHUNK` queries at a time, so their memory does not grow with the query set; with
``[compute] engine = "ray"`` (:mod:`biaswh.compute.common.engine`) the same chunks run on Ray workers
(:mod:`biaswh.compute.retrieval.ray_retrieval`; with ``corpus_shards`` each worker holds one shard of
the corpus: :mod:`biaswh.compute.retrieval.ray_shards`) and the driver writes what they return, so both
engines write the same rows by construction.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from biaswh.compute.common.engine import ComputeSettings
from biaswh.compute.retrieval.ann import add_chunk_reports
from biaswh.compute.retrieval.chunks import ChunkResult, prefetched_vectors, retrieve_chunk
from biaswh.compute.retrieval.config import RetrievalConfig
from biaswh.compute.retrieval.dense import QUERY_TILE
from biaswh.compute.retrieval.runner import Query
from biaswh.compute.retrieval.writer import ResultSpool, insert_rows, query_rows, write_retriever_runs
from biaswh.warehouse.settings.home import warehouse_paths

# Queries retrieved and written at a time: their hits (x retrievers x depth) are all that is
# held in memory, about 1 M result rows per retriever at depth 100.
QUERY_CHUNK = 10_000
# On Ray a chunk's hits come back through the object store as one object (about 20 MB of
# Parquet for 2,000 queries x 5 BM25 settings at depth 100): smaller pieces keep the store's
# pages the driver maps small, and both workers busy until the last chunk.
RAY_QUERY_CHUNK = 2_000


def retrieve_query_set(
    con,
    *,
    run_id: str,
    query_set: str,
    queries: list[Query],
    corpora: dict,
    config: RetrievalConfig,
    provider,
    cache,
    bm25_indexes: dict,
    query_set_kind: str,
    ray_pool,
    record: dict,
    created_at: datetime,
) -> tuple[int, list]:
    """Retrieve one query set chunk by chunk (only one chunk's hits held in memory) and write every
    ``raw.retrieval_*`` row of it, its per-retriever ``raw.retrieval_runs`` rows included.

    The result rows of all chunks are inserted at the end with one statement from a Parquet
    spool in the warehouse folder (see :class:`ResultSpool`). Returns the result rows
    written and each retriever's output (hits dropped; wall time summed over the chunks;
    settings and index timings of the first chunk; an ANN index's recall over every chunk). With ``ray_pool``
    (:class:`biaswh.compute.retrieval.ray_retrieval.RayRetrieval`) the chunks (:func:`query_chunks`) run on Ray workers.
    """
    chunks = query_chunks(queries, config, ray_pool)
    written, totals, answered = 0, {}, {}
    home = warehouse_paths().home
    with tempfile.TemporaryDirectory(dir=home, prefix="retrieval-spool-") as folder:
        spool = ResultSpool(Path(folder))
        if ray_pool is None:
            results = (
                retrieve_chunk(
                    chunk,
                    corpora,
                    config,
                    run_id=run_id,
                    query_set=query_set,
                    provider=provider,
                    cache=cache,
                    lancedb_dir=warehouse_paths().lancedb_dir,
                    bm25_indexes=bm25_indexes,
                    add_results=spool.add,
                )
                for chunk in chunks
            )
        else:
            vectors = prefetched_vectors(queries, corpora, config, provider, cache)
            results = ray_pool.map(
                chunks, run_id=run_id, query_set=query_set, bm25_indexes=bm25_indexes, vectors=vectors
            )
        for chunk, result in zip(chunks, results):
            for encoded in result.parquet:
                spool.add_parquet(encoded)
            insert_rows(con, "retrieval_queries", query_rows(run_id, query_set, chunk, query_set_kind))
            if result.stats is not None:
                insert_rows(con, "retrieval_query_stats", result.stats)
            written += result.n_results
            _add_up(result, totals, answered)
        spool.insert(con)
    outputs = list(totals.values())
    write_retriever_runs(
        con,
        run_id=run_id,
        query_set=query_set,
        corpus_splits={q.corpus_split for q in queries},
        n_queries=len(queries),
        outputs=outputs,
        n_answered=answered,
        config=config,
        record=record,
        created_at=created_at,
    )
    return written, outputs


def query_chunks(queries: list[Query], config: RetrievalConfig, ray_pool) -> list[list[Query]]:
    """The chunks a query set is retrieved in, in query order.

    BM25 alone: :data:`QUERY_CHUNK` queries (:data:`RAY_QUERY_CHUNK` on Ray). A dense retriever
    (or a hybrid) locally: the whole set at once (its embeddings are read per search). On Ray its
    queries fan out over the pool (``ray_pool.n_parallel`` chunks at a time, at most
    :data:`RAY_QUERY_CHUNK` queries each); unless each query is timed alone, a chunk holds whole
    tiles of :data:`~biaswh.compute.retrieval.dense.QUERY_TILE` non-blank queries of every split, the
    tiles exact search multiplies in one process, so each score keeps its local bits.
    """
    if "dense" not in config.needs:
        return _cut(queries, QUERY_CHUNK if ray_pool is None else RAY_QUERY_CHUNK)
    if ray_pool is None:
        return _cut(queries, max(1, len(queries)))
    size = max(1, min(RAY_QUERY_CHUNK, -(-len(queries) // ray_pool.n_parallel)))
    if config.timing == "per_query":
        return _cut(queries, size)
    chunks, current, asked = [], [], Counter()
    for query in queries:
        current.append(query)
        asked[query.corpus_split] += bool(query.text.strip())
        if len(current) >= size and all(count % QUERY_TILE == 0 for count in asked.values()):
            chunks.append(current)
            current, asked = [], Counter()
    return chunks + [current] if current else chunks


def _cut(queries: list[Query], size: int) -> list[list[Query]]:
    return [queries[first : first + size] for first in range(0, len(queries), size)]


def _add_up(result: ChunkResult, totals: dict, answered: dict) -> None:
    """Add one chunk's outputs to the query set's totals."""
    for output in result.outputs:
        answered[output.retriever] = answered.get(output.retriever, 0) + result.answered[output.retriever]
        if output.retriever in totals:
            totals[output.retriever].seconds += output.seconds
            if "ann_reports" in output.details:  # a dense retriever through an ANN index: recall over every chunk
                add_chunk_reports(totals[output.retriever].details, output.details["ann_reports"])
        else:
            totals[output.retriever] = output


@contextmanager
def compute_pool(engine: ComputeSettings, corpora: dict, config: RetrievalConfig):
    """Ray workers for the job when the study's engine is Ray (ended with it), else None."""
    with compute_pools(engine) as pool_for:
        yield pool_for(corpora, config)


@contextmanager
def compute_pools(engine: ComputeSettings):
    """A function giving the Ray pool for each corpora and configuration in turn (the runs of an
    evaluation series), or None when the engine is local: one pool, started at the first call and
    handed the next ones (its actors load them instead of starting again), ended with the block."""
    made: list = []

    def pool_for(corpora: dict, config: RetrievalConfig):
        if engine.engine != "ray":
            return None
        if made:
            made[0].use(corpora, config)
        else:
            made.append(_ray_pool(engine, corpora, config))
        return made[0]

    try:
        yield pool_for
    finally:
        for pool in made:
            pool.close()


def _ray_pool(engine: ComputeSettings, corpora: dict, config: RetrievalConfig):
    if engine.corpus_shards > 1:
        from biaswh.compute.retrieval.ray_shards import RayShardedRetrieval as RayRetrieval  # imports Ray
    else:
        from biaswh.compute.retrieval.ray_retrieval import RayRetrieval  # imports Ray: only when asked for

    return RayRetrieval(engine, corpora, config, lancedb_dir=warehouse_paths().lancedb_dir)
