"""Hybrid retrievers as runner outputs: each fuses the BM25 and dense hits of the same queries
(union, min-max, reciprocal rank fusion, and their sweeps), timed and priced as both retrievals
plus its share of the fusion."""

from __future__ import annotations

import time

from biaswh.compute.retrieval.config import RetrievalConfig
from biaswh.compute.retrieval.hybrid import min_max_fusion, reciprocal_rank_fusion, union_of_top_k
from biaswh.compute.retrieval.results import RetrieverOutput


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
