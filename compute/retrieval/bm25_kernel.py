"""The compiled loop of BM25's numba path (:mod:`biaswh.compute.retrieval.bm25_numba`).

Each query's score row is accumulated token by token in query order (a posting adds its
weight to its document; a very common term adds its dense weight row, exact zeros where it is
absent), the same left-to-right sums as rank_bm25's ``get_scores``; its best ``depth`` positive
scores are kept in a bounded heap under the tie rule (score descending, then doc_id ascending),
and the row is cleared for the next query. Imported only when numba is installed and used.
"""

from __future__ import annotations

import numba
import numpy as np

# Documents per block when a dense score row is ranked: each block's maximum is one document's
# score, so the depth-th best maximum bounds the depth-th best score from below and only the
# blocks reaching it are read again.
BLOCK = 16
# Documents per tile of a query with a dense row: 256 KB of float64 scores, held in a core's cache.
TILE = 32_768


def _jit(function):
    return numba.njit(cache=True, nogil=True)(function)


def _jit_no_nan(function):
    # Only for maxima: with no NaN (scores are finite) the vectorised max is the exact max.
    return numba.njit(cache=True, nogil=True, fastmath={"nnan", "ninf", "nsz"})(function)


@_jit
def _beats(score_a, id_a, score_b, id_b):
    # The tie rule: a higher score wins; of equal scores, the lower doc_id.
    return score_a > score_b or (score_a == score_b and id_a < id_b)


@_jit
def _sift_down(heap_scores, heap_docs, doc_ids, size, at):
    # A min-heap of the kept hits: the root is the worst under the tie rule.
    while True:
        child = 2 * at + 1
        if child >= size:
            return
        right = child + 1
        if right < size and _beats(
            heap_scores[child], doc_ids[heap_docs[child]], heap_scores[right], doc_ids[heap_docs[right]]
        ):
            child = right
        if not _beats(heap_scores[at], doc_ids[heap_docs[at]], heap_scores[child], doc_ids[heap_docs[child]]):
            return
        heap_scores[at], heap_scores[child] = heap_scores[child], heap_scores[at]
        heap_docs[at], heap_docs[child] = heap_docs[child], heap_docs[at]
        at = child


@_jit
def _sift_up(heap_scores, heap_docs, doc_ids, at):
    while at > 0:
        parent = (at - 1) // 2
        if not _beats(heap_scores[parent], doc_ids[heap_docs[parent]], heap_scores[at], doc_ids[heap_docs[at]]):
            return
        heap_scores[at], heap_scores[parent] = heap_scores[parent], heap_scores[at]
        heap_docs[at], heap_docs[parent] = heap_docs[parent], heap_docs[at]
        at = parent


@_jit
def _offer(score, doc, heap_scores, heap_docs, doc_ids, size, capacity):
    """Keep ``doc`` if it is among the best ``capacity`` so far; returns the heap's new size."""
    if size < capacity:
        heap_scores[size] = score
        heap_docs[size] = doc
        _sift_up(heap_scores, heap_docs, doc_ids, size)
        return size + 1
    if _beats(score, doc_ids[doc], heap_scores[0], doc_ids[heap_docs[0]]):
        heap_scores[0] = score
        heap_docs[0] = doc
        _sift_down(heap_scores, heap_docs, doc_ids, size, 0)
    return size


@_jit_no_nan
def _block_maxima(scores, maxima):
    n_docs = scores.shape[0]
    for block in range(maxima.shape[0]):
        best = 0.0
        for doc in range(block * BLOCK, min(n_docs, (block + 1) * BLOCK)):
            best = max(best, scores[doc])
        maxima[block] = best


@_jit
def _rank_range(scores, lo, hi, maxima, doc_ids, heap_scores, heap_docs, size, capacity):
    """Offer the positive scores of documents lo..hi-1 to the heap (of ``size``); zero them."""
    n_blocks = (hi - lo + BLOCK - 1) // BLOCK
    _block_maxima(scores[lo:hi], maxima[:n_blocks])
    floor = 0.0
    # Once the heap is full its worst hit is the bound; before, the depth-th best block maximum.
    if size < capacity and np.count_nonzero(maxima[:n_blocks]) > capacity:
        floor = np.partition(maxima[:n_blocks], n_blocks - capacity)[n_blocks - capacity]
    for block in range(n_blocks):
        if maxima[block] > 0.0 and maxima[block] >= floor and (size < capacity or maxima[block] >= heap_scores[0]):
            for doc in range(lo + block * BLOCK, min(hi, lo + (block + 1) * BLOCK)):
                score = scores[doc]
                if score > 0.0 and score >= floor and (size < capacity or score >= heap_scores[0]):
                    size = _offer(score, doc, heap_scores, heap_docs, doc_ids, size, capacity)
    scores[lo:hi] = 0.0
    return size


@_jit
def _rank_one_query(
    terms,
    indptr,
    indices,
    data,
    dense_slot,
    dense_weights,
    doc_ids,
    scores,
    maxima,
    heap_scores,
    heap_docs,
    capacity,
    tile,
):
    """Score one query into ``scores`` (zeros on entry and on return); its hits best first."""
    n_docs = scores.shape[0]
    used_dense = False
    for term in terms:
        used_dense = used_dense or dense_slot[term] >= 0
    size = 0
    if used_dense:
        # Tile by tile, so the tile's scores stay in cache while every token adds to them in query
        # order; a posting list is read from where the previous tile left it.
        cursors = indptr[terms].copy()
        for lo in range(0, n_docs, tile):
            hi = min(n_docs, lo + tile)
            for position in range(terms.shape[0]):
                term = terms[position]
                slot = dense_slot[term]
                if slot >= 0:
                    row = dense_weights[slot]
                    for doc in range(lo, hi):
                        scores[doc] += row[doc]
                elif hi == n_docs:  # the last tile holds every posting left: no bound to test
                    for entry in range(cursors[position], indptr[term + 1]):
                        scores[indices[entry]] += data[entry]
                else:
                    entry, end = cursors[position], indptr[term + 1]
                    while entry < end and indices[entry] < hi:
                        scores[indices[entry]] += data[entry]
                        entry += 1
                    cursors[position] = entry
            size = _rank_range(scores, lo, hi, maxima, doc_ids, heap_scores, heap_docs, size, capacity)
    else:
        for term in terms:
            for entry in range(indptr[term], indptr[term + 1]):
                scores[indices[entry]] += data[entry]
        # Only the documents of the query's postings can score; each is offered once (then zeroed).
        for term in terms:
            for entry in range(indptr[term], indptr[term + 1]):
                doc = indices[entry]
                score = scores[doc]
                if score > 0.0:
                    scores[doc] = 0.0
                    if size < capacity or score >= heap_scores[0]:
                        size = _offer(score, doc, heap_scores, heap_docs, doc_ids, size, capacity)
    # Heap sort: the worst goes to the end, so positions 0..size-1 end best first.
    for last in range(size - 1, 0, -1):
        heap_scores[0], heap_scores[last] = heap_scores[last], heap_scores[0]
        heap_docs[0], heap_docs[last] = heap_docs[last], heap_docs[0]
        _sift_down(heap_scores, heap_docs, doc_ids, last, 0)
    return size


def _rank_queries(
    query_terms, query_offsets, indptr, indices, data, dense_slot, dense_weights, doc_ids, depth, n_chunks, tile
):
    n_queries = query_offsets.shape[0] - 1
    n_docs = doc_ids.shape[0]
    capacity = min(depth, n_docs)
    hit_docs = np.zeros((n_queries, capacity), dtype=np.int64)
    hit_scores = np.zeros((n_queries, capacity), dtype=np.float64)
    hit_counts = np.zeros(n_queries, dtype=np.int64)
    per_chunk = (n_queries + n_chunks - 1) // n_chunks
    for chunk in numba.prange(n_chunks):
        scores = np.zeros(n_docs, dtype=np.float64)
        maxima = np.zeros((min(n_docs, tile) + BLOCK - 1) // BLOCK, dtype=np.float64)
        for query in range(chunk * per_chunk, min(n_queries, (chunk + 1) * per_chunk)):
            terms = query_terms[query_offsets[query] : query_offsets[query + 1]]
            hit_counts[query] = _rank_one_query(
                terms,
                indptr,
                indices,
                data,
                dense_slot,
                dense_weights,
                doc_ids,
                scores,
                maxima,
                hit_scores[query],
                hit_docs[query],
                capacity,
                tile,
            )
    return hit_docs, hit_scores, hit_counts


_compiled: dict[bool, object] = {}


def _kernel(parallel: bool):
    if parallel not in _compiled:
        _compiled[parallel] = numba.njit(cache=True, nogil=True, parallel=parallel)(_rank_queries)
    return _compiled[parallel]


def rank_queries(
    query_terms: np.ndarray,
    query_offsets: np.ndarray,
    weights,
    dense_slot: np.ndarray,
    dense_weights: np.ndarray,
    doc_ids: np.ndarray,
    depth: int,
    *,
    threads: int | None = None,
    tile: int = TILE,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each query's best ``depth`` document positions, their scores and how many there are.

    ``query_terms[query_offsets[i]:query_offsets[i + 1]]`` are query i's known term ids in
    query order; ``weights`` the index's term-by-document CSR matrix. ``threads``: queries
    are split over this many numba threads (default: one); ``tile``: documents per tile of a
    query with a dense row (the results do not depend on it; tests pass small ones).
    """
    threads = 1 if threads is None else max(1, int(threads))
    kernel = _kernel(threads > 1)
    n_chunks = min(threads, max(1, len(query_offsets) - 1))
    previous = numba.get_num_threads()
    if threads > 1:
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        return kernel(
            query_terms,
            query_offsets,
            weights.indptr.astype(np.int64, copy=False),
            weights.indices,
            weights.data,
            dense_slot,
            dense_weights,
            doc_ids,
            depth,
            n_chunks,
            tile,
        )
    finally:
        if threads > 1:
            numba.set_num_threads(previous)
