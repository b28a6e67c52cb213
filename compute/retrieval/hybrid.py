"""Hybrid retrieval from two ranked lists: union of the top-k, min-max fusion, reciprocal rank fusion.

All three take each retriever's hits for one query (best first, to the run's depth) and
rank with the engine's tie rule (score descending, then doc_id ascending).

- **Union** (the original study's recall ceiling): a document's rank is the smallest k at
  which it is in either list's top k, so "gold within rank k" means "gold in the union of
  the two top-k lists". Two documents can share a rank; there is no fused score.
- **Min-max fusion**: each list's scores are scaled to [0, 1] by that query's min and max
  (a list whose scores are all equal scales to 1); a document absent from a list gets 0
  there; the fused score is ``weight_a * a + weight_b * b``.
- **Reciprocal rank fusion** (Cormack et al. 2009): ``sum over lists of 1 / (k + rank)``
  with ranks from 1, ``k = 60`` by default; absent documents add nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from biaswh.compute.retrieval.ranking import QueryHits, no_hits, top_k

DEFAULT_RRF_K = 60


@dataclass(frozen=True)
class UnionHits:
    """One query's union of two top lists: doc ids with the rank at which each joins the union."""

    doc_ids: np.ndarray
    ranks: np.ndarray
    reason: str | None = None

    def __len__(self) -> int:
        return len(self.doc_ids)


def _both_empty(a: QueryHits, b: QueryHits) -> str | None:
    if len(a) == 0 and len(b) == 0:
        return a.reason or b.reason or "no hits from either retriever"
    return None


def union_of_top_k(a: QueryHits, b: QueryHits) -> UnionHits:
    """The union of two ranked lists, each document at the smallest rank either list gives it."""
    reason = _both_empty(a, b)
    if reason:
        return UnionHits(np.empty(0, np.int64), np.empty(0, np.int64), reason)
    best: dict[int, int] = {}
    for hits in (a, b):
        for rank, doc_id in enumerate(hits.doc_ids.tolist(), start=1):
            best[doc_id] = min(rank, best.get(doc_id, rank))
    ordered = sorted(best.items(), key=lambda item: (item[1], item[0]))
    return UnionHits(np.asarray([d for d, _ in ordered], np.int64), np.asarray([r for _, r in ordered], np.int64))


def _min_max(scores: np.ndarray) -> np.ndarray:
    low, high = scores.min(), scores.max()
    if high == low:
        return np.ones_like(scores, dtype=np.float64)
    return (scores - low) / (high - low)


def _fuse(parts: list[tuple[QueryHits, np.ndarray]], depth: int) -> QueryHits:
    fused: dict[int, float] = {}
    for hits, contributions in parts:
        for doc_id, value in zip(hits.doc_ids.tolist(), contributions.tolist()):
            fused[doc_id] = fused.get(doc_id, 0.0) + value
    doc_ids = np.asarray(list(fused), np.int64)
    return QueryHits(*top_k(np.asarray(list(fused.values()), np.float64), doc_ids, depth))


def min_max_fusion(
    a: QueryHits, b: QueryHits, *, weight_a: float = 0.5, weight_b: float = 0.5, depth: int = 100
) -> QueryHits:
    """Weighted sum of per-query min-max normalised scores over the union of both lists."""
    reason = _both_empty(a, b)
    if reason:
        return no_hits(reason)
    parts = [(hits, weight * _min_max(hits.scores)) for hits, weight in ((a, weight_a), (b, weight_b)) if len(hits)]
    return _fuse(parts, depth)


def reciprocal_rank_fusion(lists: list[QueryHits], *, k: float = DEFAULT_RRF_K, depth: int = 100) -> QueryHits:
    """Sum of ``1 / (k + rank)`` over the lists that hold a document (ranks from 1)."""
    if all(len(hits) == 0 for hits in lists):
        return no_hits(next((h.reason for h in lists if h.reason), "no hits from any retriever"))
    parts = [(hits, 1.0 / (k + np.arange(1, len(hits) + 1, dtype=np.float64))) for hits in lists if len(hits)]
    return _fuse(parts, depth)


def weight_grid(step: float = 0.1) -> list[float]:
    """BM25 weights 0.0, step, ..., 1.0 for a fusion sweep (the dense weight is 1 minus it)."""
    n = int(round(1 / step))
    return [round(i * step, 10) for i in range(n + 1)]
