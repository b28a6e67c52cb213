"""Run the configured retrievers over corpora and queries, without touching the warehouse.

The study job reads the marts, calls :func:`run_retrievers`, and writes what it returns;
benchmarks and other tools can call it directly.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from biaswh.compute.retrieval.ann import combined_report, search_ann
from biaswh.compute.retrieval.bm25 import BM25Index, BM25Parameters
from biaswh.compute.retrieval.bm25_cache import cached_bm25_index
from biaswh.compute.retrieval.config import SEED_COMPATIBLE_BM25, RetrievalConfig
from biaswh.compute.retrieval.dense import DenseIndex
from biaswh.compute.retrieval.embeddings import EmbeddingProvider
from biaswh.compute.retrieval.hybrid import min_max_fusion, reciprocal_rank_fusion, union_of_top_k
from biaswh.compute.retrieval.ranking import EMPTY_QUERY, QueryHits, no_hits
from biaswh.compute.retrieval.tokenize import RegexTokenizer
from biaswh.ingest.common.embedding_cache import EmbeddingCache


@dataclass(frozen=True)
class Query:
    """One query of a query set."""

    query_id: str
    variant: str
    corpus_split: str
    text: str
    relevant_doc_id: int | None = None


@dataclass(frozen=True)
class Corpus:
    """One split's documents (ids ascending).

    A corpus shard (:func:`biaswh.compute.retrieval.shards.shard_corpora`) also carries ``tile_before``
    and ``tile_after``: the texts of the other documents of its first and last dense tiles, which
    exact dense search scores beside its own (so every score has the unsharded bits) and never ranks.
    """

    doc_ids: list[int]
    texts: list[str]
    tile_before: tuple[str, ...] = ()
    tile_after: tuple[str, ...] = ()


@dataclass
class RetrieverOutput:
    """One retriever's hits for every query (aligned with the queries), with timing and settings."""

    retriever: str
    family: str
    hits: list = field(default_factory=list)
    latency_ms: list = field(default_factory=list)
    seconds: float = 0.0
    details: dict = field(default_factory=dict)


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


def with_hybrids(
    base: dict[str, RetrieverOutput], points: list[RetrieverOutput], config: RetrievalConfig
) -> list[RetrieverOutput]:
    """The configured outputs in run order: base retrievers, BM25 settings, then each hybrid fused from ``base``."""
    outputs = [base[name] for name in ("bm25", "dense") if name in config.retrievers] + points
    base_hits = {name: output.hits for name, output in base.items()}
    base_latency = {name: output.latency_ms for name, output in base.items()}
    for hybrid in _hybrids(base_hits, base_latency, config):
        hybrid.seconds += base["bm25"].seconds + base["dense"].seconds  # a hybrid runs both retrievers
        outputs.append(hybrid)
    return outputs


def _fused(name: str, family: str, fuse, base_hits: dict, base_latency: dict, details: dict) -> RetrieverOutput:
    start = time.perf_counter()
    hits = [fuse(a, b) for a, b in zip(base_hits["bm25"], base_hits["dense"])]
    seconds = time.perf_counter() - start
    # A hybrid query costs both retrievals plus its share of the fusion step.
    share = seconds * 1000 / max(1, len(hits))
    latency = [
        None if a is None and b is None else (a or 0.0) + (b or 0.0) + share
        for a, b in zip(base_latency["bm25"], base_latency["dense"])
    ]
    return RetrieverOutput(name, family, hits, latency, seconds, details | {"fusion_seconds": seconds})


def _hybrids(base_hits: dict, base_latency: dict, config: RetrievalConfig) -> list[RetrieverOutput]:
    outputs = []
    depth = config.depth
    if "hybrid_union" in config.retrievers:
        outputs.append(_fused("hybrid_union", "hybrid_union", union_of_top_k, base_hits, base_latency, {}))
    minmax_points = [("hybrid_minmax", config.weights)] if "hybrid_minmax" in config.retrievers else []
    minmax_points += [(f"hybrid_minmax@{w:g}", (w, round(1 - w, 10))) for w in config.sweep_weights]
    for name, (w_bm25, w_dense) in minmax_points:
        fuse = lambda a, b, wa=w_bm25, wb=w_dense: min_max_fusion(a, b, weight_a=wa, weight_b=wb, depth=depth)  # noqa: E731
        outputs.append(
            _fused(
                name,
                "hybrid_minmax",
                fuse,
                base_hits,
                base_latency,
                {"fusion_weight_bm25": w_bm25, "fusion_weight_dense": w_dense},
            )
        )
    rrf_points = [("hybrid_rrf", config.rrf_k)] if "hybrid_rrf" in config.retrievers else []
    rrf_points += [(f"hybrid_rrf@{k:g}", k) for k in config.sweep_rrf_k]
    for name, k in rrf_points:
        fuse = lambda a, b, kk=k: reciprocal_rank_fusion([a, b], k=kk, depth=depth)  # noqa: E731
        outputs.append(_fused(name, "hybrid_rrf", fuse, base_hits, base_latency, {"rrf_k": k}))
    return outputs


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
