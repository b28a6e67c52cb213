"""Dense retrieval: exact cosine search by default, an ANN index in LanceDB as an option.

Exact search is matrix products of unit vectors, tile by tile (recall 1.0; at tens of
thousands of documents it is fast). An ANN index (IVF_FLAT or IVF_HNSW_SQ; IVF_PQ only when named) is
built in LanceDB (:mod:`biaswh.compute.retrieval.ann`) and its recall against exact search is always
measured and reported, because LanceDB's default IVF_PQ reached only 0.2-0.3 on this corpus.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from biaswh.compute.common.blas import one_blas_thread
from biaswh.compute.retrieval.ranking import EMPTY_QUERY, QueryHits, merge_top_k, no_hits, top_k_rows
from biaswh.warehouse.errors import UserError

AnnIndex = Literal["none", "ivf_flat", "ivf_hnsw_sq", "ivf_pq"]
ANN_INDEXES = ("none", "ivf_flat", "ivf_hnsw_sq", "ivf_pq")
# Exact search multiplies tiles: up to QUERY_TILE unit query vectors by up to DOC_TILE unit
# document vectors, cut from the first query and the first document. A float32 matrix
# product's last bits depend on the shapes BLAS is given, so a score depends only on its
# query, its document and the tiles they fall in, not on how many documents the index holds.
# A corpus shard (compute/retrieval/shards.py) may start and stop inside a tile: its index also
# holds the vectors of the other documents of its first and last tiles (``own`` marks its own
# rows), so it multiplies the very tiles the unsharded index multiplies, ranks only its own
# documents, and its scores are the same bits.
# The bits depend on BLAS's thread count too (OpenBLAS's float32 products on two threads and on
# one differ in the last bit on some CPUs): tiles are multiplied on one BLAS thread, the count a
# Ray worker runs with, whatever cores the machine has.
QUERY_TILE = 256
DOC_TILE = 4096
# Documents scored at once per query tile (whole tiles, about 8 M cells).
BLOCK_DOCS = 8_000_000 // QUERY_TILE // DOC_TILE * DOC_TILE


def unit_rows(vectors) -> np.ndarray:
    """Rows scaled to length 1 (cosine similarity is then a dot product); zero rows stay zero."""
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim != 2:
        vectors = vectors.reshape(len(vectors), -1)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


class DenseIndex:
    """Exact cosine search over unit document vectors.

    Parameters
    ----------
    doc_ids
        One id per document; ties are broken by the lower id.
    vectors
        Document vectors, one row each (normalised here).
    own
        ``(start, stop)``: the rows of ``vectors`` that are the documents of ``doc_ids``; the
        others are scored with them (the rest of a corpus shard's first and last tiles, whose
        first row starts a tile of the whole corpus) and never ranked. Default: every row.
    """

    def __init__(self, doc_ids, vectors: np.ndarray, *, own: tuple[int, int] | None = None) -> None:
        if len(doc_ids) == 0:
            raise UserError("the corpus has no documents: dense search needs at least one")
        self.doc_ids = np.asarray(doc_ids, dtype=np.int64)
        self.vectors = unit_rows(vectors)
        self.own = own or (0, len(self.vectors))
        if self.own[1] - self.own[0] != len(self.doc_ids) or not 0 <= self.own[0] <= self.own[1] <= len(self.vectors):
            raise ValueError(f"own rows {self.own} do not match {len(self.doc_ids)} document ids")

    def search(
        self, query_vectors: np.ndarray, *, depth: int = 100, query_texts: list[str] | None = None
    ) -> list[QueryHits]:
        """Rank every document by cosine similarity for each query vector (blank texts get no hits)."""
        query_vectors = unit_rows(query_vectors)
        results = []
        for start in range(0, len(query_vectors), QUERY_TILE):
            with one_blas_thread():
                ranked = self._rank_tile(query_vectors[start : start + QUERY_TILE], depth)
            for row, (found_ids, found_scores) in enumerate(ranked):
                text = None if query_texts is None else query_texts[start + row]
                if text is not None and not text.strip():
                    results.append(no_hits(EMPTY_QUERY))
                else:
                    results.append(QueryHits(found_ids, found_scores))
        return results

    def _rank_tile(self, queries: np.ndarray, depth: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """Each query's top ``depth``, the documents scored a block of whole tiles at a time and merged."""
        best: list | None = None
        start, stop = self.own
        for first in range(0, stop, BLOCK_DOCS):
            last = min(stop, first + BLOCK_DOCS)
            kept = max(first, start)
            if kept >= last:
                continue
            # Whole tiles to the end of the block's last tile: only the other documents of a tile run past ``stop``.
            end = min(len(self.vectors), -(-last // DOC_TILE) * DOC_TILE)
            tiles = [queries @ self.vectors[tile : min(end, tile + DOC_TILE)].T for tile in range(first, end, DOC_TILE)]
            # Ranked in float32: widening is exact and keeps the order, so only the hits are widened.
            scores = np.concatenate(tiles, axis=1)[:, kept - first : last - first]
            ranked = top_k_rows(scores, None, self.doc_ids[kept - start : last - start], depth)
            best = ranked if best is None else [merge_top_k([a, b], depth) for a, b in zip(best, ranked)]
        return best
