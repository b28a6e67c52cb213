"""Run the configured retrievers over corpora and queries, without touching the warehouse.

The study job reads the marts, calls :func:`run_retrievers`, and writes what it returns;
benchmarks and other tools can call it directly.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from pathlib import Path

from biaswh.compute.retrieval.ann import combined_report, search_ann
from biaswh.compute.retrieval.bm25 import BM25Index
from biaswh.compute.retrieval.bm25_cache import cached_bm25_index
from biaswh.compute.retrieval.bm25_statistics import BM25Parameters
from biaswh.compute.retrieval.config import SEED_COMPATIBLE_BM25, RetrievalConfig
from biaswh.compute.retrieval.dense import DenseIndex
from biaswh.compute.retrieval.embeddings import EmbeddingProvider
from biaswh.compute.retrieval.hybrid_runs import with_hybrids
from biaswh.compute.retrieval.ranking import EMPTY_QUERY, QueryHits, no_hits
from biaswh.compute.retrieval.results import Corpus, Query, RetrieverOutput
from biaswh.compute.retrieval.tokenize import RegexTokenizer
from biaswh.ingest.common.embedding_cache import EmbeddingCache


def _timed_search(search, texts: list[str], per_query: bool) -> tuple[list, list[float], float]:
    """Run ``search(texts)`` as one batch (latency = batch time / n) or query by query."""
    if not texts:
        return [], [], 0.0
    if per_query:
        hits, latencies = [], []
        for text in texts:
            start = time.perf_counter()
            hits.extend(search([text]))
            latencies.append((time.perf_counter() - start) * 1000)
        return hits, latencies, sum(latencies) / 1000
    start = time.perf_counter()
    hits = search(texts)
    seconds = time.perf_counter() - start
    return hits, [seconds * 1000 / len(texts)] * len(texts), seconds


def _bm25_index(split: str, corpus: Corpus, config: RetrievalConfig, parameters: dict, indexes: dict) -> BM25Index:
    """The BM25 index of ``split`` with ``parameters``, built into ``indexes`` unless it is there."""
    key = bm25_index_key(split, parameters)
    if key not in indexes:
        indexes[key] = cached_bm25_index(
            corpus.texts,
            doc_ids=corpus.doc_ids,
            parameters=BM25Parameters(**parameters),
            tokenizer=RegexTokenizer(config.tokenizer["pattern"], config.tokenizer["lowercase"]),
        )
    return indexes[key]


def bm25_index_key(split: str, parameters: dict) -> tuple:
    """The key of the BM25 index of ``split`` with ``parameters`` in a ``bm25_indexes`` dict."""
    return (split, tuple(sorted(parameters.items())))


def bm25_settings(config: RetrievalConfig) -> list[dict]:
    """Every BM25 parameter set :func:`run_retrievers` builds an index for (per split)."""
    settings = [config.bm25] if "bm25" in config.needs or SEED_COMPATIBLE_BM25 in config.retrievers else []
    return [*settings, *config.bm25_points.values()]


def build_bm25_indexes(corpora: dict[str, Corpus], splits: set[str], config: RetrievalConfig, indexes: dict) -> dict:
    """Build into ``indexes`` every BM25 index :func:`run_retrievers` needs for queries over ``splits``.

    What a Ray driver puts in the object store once, so its workers never build one.
    """
    for split in sorted(splits):
        for parameters in bm25_settings(config):
            _bm25_index(split, corpora[split], config, parameters, indexes)
    return indexes


def _bm25_for_split(
    split: str,
    corpus: Corpus,
    texts: list[str],
    config: RetrievalConfig,
    parameters: dict,
    indexes: dict,
    out: RetrieverOutput,
    *,
    ranking: str = "tie_rule",
) -> tuple[list, list]:
    """BM25 with ``parameters`` over one split; the index is built once per (split, parameters)."""
    start = time.perf_counter()
    index = _bm25_index(split, corpus, config, parameters, indexes)
    out.details.setdefault("index_seconds", {})[split] = time.perf_counter() - start
    out.details.setdefault("index", {})[split] = index.describe()
    out.details["ranking"] = ranking
    hits, latencies, seconds = _timed_search(
        lambda batch: index.search(batch, depth=config.depth, ranking=ranking), texts, config.timing == "per_query"
    )
    out.seconds += seconds
    return hits, latencies


def _dense_for_split(
    split: str,
    corpus: Corpus,
    texts: list[str],
    config: RetrievalConfig,
    cache: EmbeddingCache,
    provider: EmbeddingProvider | None,
    lancedb_dir: Path,
    out: dict,
) -> tuple[list, list, float]:
    scored = [*corpus.tile_before, *corpus.texts, *corpus.tile_after]
    document_vectors, n_docs_embedded = cache.vectors_for(scored, provider)
    blank = [not t.strip() for t in texts]
    asked = [t for t, b in zip(texts, blank) if not b]
    query_vectors, n_queries_embedded = cache.vectors_for(asked, provider)
    out["n_embedded"] = out.get("n_embedded", 0) + n_docs_embedded + n_queries_embedded
    own = len(corpus.tile_before)
    index = DenseIndex(corpus.doc_ids, document_vectors, own=(own, own + len(corpus.texts)))
    position = {text: i for i, text in enumerate(asked)}
    if config.ann_index == "none":
        search = lambda batch: index.search(query_vectors[[position[t] for t in batch]], depth=config.depth)  # noqa: E731
        found, latencies, seconds = _timed_search(search, asked, config.timing == "per_query")
    else:
        start = time.perf_counter()
        found, report = search_ann(
            index,
            query_vectors,
            lancedb_dir=lancedb_dir,
            index=config.ann_index,
            seed=config.ann_seed,
            depth=config.depth,
            n_partitions=config.ann_partitions,
            n_probes=config.ann_probes,
        )
        seconds = time.perf_counter() - start
        latencies = [seconds * 1000 / max(1, len(asked))] * len(asked)
        out.setdefault("ann_reports", []).append(asdict(report) | {"corpus_split": split})
    found, latencies = iter(found), iter(latencies)
    hits = [no_hits(EMPTY_QUERY) if b else next(found) for b in blank]
    return hits, [None if b else next(latencies) for b in blank], seconds


def run_retrievers(
    corpora: dict[str, Corpus],
    queries: list[Query],
    config: RetrievalConfig,
    *,
    provider: EmbeddingProvider | None,
    cache: EmbeddingCache | None,
    lancedb_dir: Path,
    bm25_indexes: dict | None = None,
) -> list[RetrieverOutput]:
    """Every configured retriever (and sweep point) over ``queries``, each against its split's corpus.

    ``bm25_indexes`` ((split, BM25 parameters) -> index), when given, keeps BM25 indexes for the
    next query set (or chunk of queries) over the same corpora and configuration.
    """
    bm25_indexes = {} if bm25_indexes is None else bm25_indexes
    needs = config.needs
    base = {name: RetrieverOutput(name, name) for name in ("bm25", "dense") if name in needs}
    base_hits = {name: [None] * len(queries) for name in base}
    base_latency = {name: [None] * len(queries) for name in base}
    points = {
        name: RetrieverOutput(name, "bm25", [None] * len(queries), [None] * len(queries)) for name in config.bm25_points
    }
    if SEED_COMPATIBLE_BM25 in config.retrievers:
        points[SEED_COMPATIBLE_BM25] = RetrieverOutput(
            SEED_COMPATIBLE_BM25, SEED_COMPATIBLE_BM25, [None] * len(queries), [None] * len(queries)
        )
    for split in sorted({q.corpus_split for q in queries}):
        rows = [i for i, q in enumerate(queries) if q.corpus_split == split]
        texts = [queries[i].text for i in rows]
        corpus = corpora[split]
        if "bm25" in base:
            hits, latencies = _bm25_for_split(split, corpus, texts, config, config.bm25, bm25_indexes, base["bm25"])
            for i, h, latency in zip(rows, hits, latencies):
                base_hits["bm25"][i], base_latency["bm25"][i] = h, latency
        for name, parameters in config.bm25_points.items():
            hits, latencies = _bm25_for_split(split, corpus, texts, config, parameters, bm25_indexes, points[name])
            for i, h, latency in zip(rows, hits, latencies):
                points[name].hits[i], points[name].latency_ms[i] = h, latency
        if SEED_COMPATIBLE_BM25 in points:
            name = SEED_COMPATIBLE_BM25
            hits, latencies = _bm25_for_split(
                split, corpus, texts, config, config.bm25, bm25_indexes, points[name], ranking="seed_compatible"
            )
            for i, h, latency in zip(rows, hits, latencies):
                points[name].hits[i], points[name].latency_ms[i] = h, latency
        if "dense" in base:
            hits, latencies, seconds = _dense_for_split(
                split, corpus, texts, config, cache, provider, lancedb_dir, base["dense"].details
            )
            base["dense"].seconds += seconds
            for i, h, latency in zip(rows, hits, latencies):
                base_hits["dense"][i], base_latency["dense"][i] = h, latency
    for name, output in base.items():
        output.hits, output.latency_ms = base_hits[name], base_latency[name]
    if "dense" in base and "ann_reports" in base["dense"].details:
        base["dense"].details["ann_recall"] = combined_report(base["dense"].details["ann_reports"])["recall"]
    return with_hybrids(base, list(points.values()), config)


def hits_count(hits) -> int:
    """How many documents a result holds (QueryHits or UnionHits)."""
    return len(hits.doc_ids)


__all__ = [
    "Corpus",
    "Query",
    "QueryHits",
    "RetrieverOutput",
    "bm25_index_key",
    "bm25_settings",
    "build_bm25_indexes",
    "hits_count",
    "run_retrievers",
    "with_hybrids",
]
