"""One chunk of a query set retrieved and turned into rows, the unit both compute engines run.

The local engine calls :func:`retrieve_chunk` in its own process; the Ray engine
(:mod:`biaswh.compute.retrieval.ray_retrieval`) calls the same function in a worker, so both give the
same rows by construction. Neither touches the warehouse: the driver inserts the rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa

from biaswh.compute.retrieval.config import RetrievalConfig
from biaswh.compute.retrieval.runner import Corpus, Query, RetrieverOutput, run_retrievers
from biaswh.compute.retrieval.writer import query_stats_rows, result_rows
from biaswh.ingest.common.embedding_cache import EmbeddingCache, text_sha256


@dataclass
class ChunkResult:
    """What a chunk leaves once its ranked hits went to ``add_results``.

    ``outputs``: each retriever's output, hits dropped (wall time and settings kept);
    ``answered``: per retriever, how many queries got a hit; ``stats``: the
    ``raw.retrieval_query_stats`` rows; ``n_results``: ranked hits handed on; ``parquet``: those
    hits as Parquet files, when a Ray worker encoded them for the driver.
    """

    outputs: list[RetrieverOutput]
    answered: dict[str, int]
    stats: pa.Table | None
    n_results: int
    parquet: list[bytes] = field(default_factory=list)


class PrefetchedVectors:
    """The embedding cache's vectors of a fixed set of texts, looked up by text.

    What a Ray worker gets instead of the LanceDB cache: the driver embeds what is missing and
    writes the cache (one writer), the workers only read these rows, which are the cache's
    own float32 values, so dense scores match the local engine's bit for bit.
    """

    def __init__(self, cache: EmbeddingCache, provider, texts: list[str]) -> None:
        unique = list(dict.fromkeys(texts))
        self.matrix, self.n_embedded = cache.vectors_for(unique, provider)
        self.row = {text_sha256(text): number for number, text in enumerate(unique)}

    def vectors_for(self, texts: list[str], provider) -> tuple[np.ndarray, int]:
        """Rows for ``texts`` (in order) and 0 texts embedded (the signature of :meth:`EmbeddingCache.vectors_for`)."""
        return self.matrix[[self.row[text_sha256(text)] for text in texts]], 0

    def restricted_to(self, texts: list[str]) -> PrefetchedVectors:
        """Only the rows of ``texts``: what the worker of one corpus shard reads."""
        restricted = object.__new__(PrefetchedVectors)
        unique = list(dict.fromkeys(texts))
        restricted.matrix, restricted.n_embedded = self.vectors_for(unique, None)[0], 0
        restricted.row = {text_sha256(text): number for number, text in enumerate(unique)}
        return restricted


def prefetched_vectors(
    queries: list[Query], corpora: dict, config: RetrievalConfig, provider, cache
) -> PrefetchedVectors | None:
    """For Ray workers: every vector the query set's dense search reads, embedded and cached here first."""
    if "dense" not in config.needs:
        return None
    splits = sorted({q.corpus_split for q in queries})
    for split in splits:
        # Embedded in the calls the local engine makes, in its order: a text's vector depends on
        # the forward batch it shared, so a fresh cache gets the local engine's vectors.
        cache.vectors_for(corpora[split].texts, provider)
        cache.vectors_for([q.text for q in queries if q.corpus_split == split and q.text.strip()], provider)
    texts = [t for split in splits for t in corpora[split].texts]
    return PrefetchedVectors(cache, provider, texts + [q.text for q in queries if q.text.strip()])


def retrieve_chunk(
    queries: list[Query],
    corpora: dict[str, Corpus],
    config: RetrievalConfig,
    *,
    run_id: str,
    query_set: str,
    provider,
    cache,
    lancedb_dir: Path,
    bm25_indexes: dict,
    add_results: Callable[[pa.Table], None],
) -> ChunkResult:
    """Run every configured retriever over ``queries``; hand each retriever's ranked hits to ``add_results``."""
    outputs = run_retrievers(
        corpora,
        queries,
        config,
        provider=provider,
        cache=cache,
        lancedb_dir=lancedb_dir,
        bm25_indexes=bm25_indexes,
    )
    return chunk_result(outputs, queries, config, run_id=run_id, query_set=query_set, add_results=add_results)


def chunk_result(
    outputs: list[RetrieverOutput],
    queries: list[Query],
    config: RetrievalConfig,
    *,
    run_id: str,
    query_set: str,
    add_results: Callable[[pa.Table], None],
) -> ChunkResult:
    """Each retriever's hits of ``queries`` handed to ``add_results`` as rows; the rest as a :class:`ChunkResult`.

    Only one retriever's result table is held at a time besides the chunk's hits.
    """
    stats, answered, n_results = [], {}, 0
    for output in outputs:
        results = result_rows(run_id, query_set, queries, output)
        n_results += results.num_rows
        add_results(results)
        del results
        stats.append(query_stats_rows(run_id, query_set, queries, output, config))
        answered[output.retriever] = sum(len(h.doc_ids) > 0 for h in output.hits)
    for output in outputs:  # after the loop: a hybrid's rows were built from the base retrievers' hits
        output.hits, output.latency_ms = [], []
    return ChunkResult(outputs, answered, pa.concat_tables(stats) if stats else None, n_results)
