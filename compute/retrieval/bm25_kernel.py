"""The compiled loop of BM25's numba path (:mod:`biaswh.compute.retrieval.bm25_numba`).

A query is first ranked on its candidates alone (:mod:`biaswh.compute.retrieval.bm25_candidates`);
only when a document outside them could still enter its hits is the whole row scored. Then
the row is scored one tile of documents at a time, in a tile-sized buffer that stays in cache,
token by token in query order (a posting adds its weight to its document; a run of very common
terms adds their dense weight rows in one pass, exact zeros where a term is absent,
:mod:`biaswh.compute.retrieval.bm25_dense`), the same left-to-right sums as rank_bm25's
``get_scores``; its best ``depth`` positive scores are kept in a bounded heap under the tie
rule (score descending, then doc_id ascending). Imported only when numba is installed and used.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

from biaswh.compute.retrieval.bm25_candidates import BUCKETS, rank_candidates
from biaswh.compute.retrieval.bm25_dense import add_dense_run
from biaswh.compute.retrieval.bm25_heap import offer, sort_heap

# Documents per block when a dense score row is ranked: each block's maximum is one document's
# score, so the depth-th best maximum bounds the depth-th best score from below and only the
# blocks reaching it are read again.
BLOCK = 16
# Documents per tile of a query with a dense row: 256 KB of float64 scores, held in a core's cache.
TILE = 32_768
# A score row larger than a tile misses the cache: a candidate's scattered add or gather then
# costs about this many of the full path's sequential adds, so a query is ranked on its
# candidates first only when its rare terms' postings, times this, are at most the documents.
CANDIDATE_COST = 4
# Threads share a batch in parts of at least CHUNK queries, PARTS_PER_THREAD parts per thread:
# small enough that the threads finish together on a busy machine.
CHUNK = 256
PARTS_PER_THREAD = 8


def _jit(function):
    return numba.njit(cache=True, nogil=True)(function)


def _jit_no_nan(function):
    # Only for maxima: with no NaN (scores are finite) the vectorised max is the exact max.
    return numba.njit(cache=True, nogil=True, fastmath={"nnan", "ninf", "nsz"})(function)


@_jit_no_nan
def _block_maxima(scores, maxima):
    n_docs = scores.shape[0]
    whole = n_docs // BLOCK
    # A fixed-length inner loop is vectorised: 0.19 ms per million documents, against 0.53 ms
    # for the same maxima with a variable bound (measured; a full-scored query's fixed cost on
    # the 1 M corpus fell from 1.23 to 0.76 ms).
    for block in range(whole):
        best, start = 0.0, block * BLOCK
        for offset in range(BLOCK):
            best = max(best, scores[start + offset])
        maxima[block] = best
    if whole < maxima.shape[0]:
        best = 0.0
        for doc in range(whole * BLOCK, n_docs):
            best = max(best, scores[doc])
        maxima[whole] = best


@_jit
def _rank_tile(part, lo, maxima, doc_ids, heap_scores, heap_docs, size, capacity):
    """Offer the positive scores ``part`` of documents lo, lo + 1, ... to the heap (of ``size``)."""
    n_blocks = (part.shape[0] + BLOCK - 1) // BLOCK
    _block_maxima(part, maxima[:n_blocks])
    floor = 0.0
    # Once the heap is full its worst hit is the bound; before, the depth-th best block maximum.
    if size < capacity and np.count_nonzero(maxima[:n_blocks]) > capacity:
        floor = np.partition(maxima[:n_blocks], n_blocks - capacity)[n_blocks - capacity]
    for block in range(n_blocks):
        if maxima[block] > 0.0 and maxima[block] >= floor and (size < capacity or maxima[block] >= heap_scores[0]):
            for offset in range(block * BLOCK, min(part.shape[0], (block + 1) * BLOCK)):
                score = part[offset]
                if score > 0.0 and score >= floor and (size < capacity or score >= heap_scores[0]):
                    size = offer(score, lo + offset, heap_scores, heap_docs, doc_ids, size, capacity)
    return size


@_jit
def _candidates_pay(terms, indptr, dense_slot, n_docs, tile, candidate_cost):
    """Whether ranking on the candidates first is cheaper than scoring every document, tile by tile."""
    if n_docs <= tile:  # the score row stays in cache: scattered adds cost no more than sequential ones
        return True
    postings = 0
    for term in terms:
        if dense_slot[term] < 0:
            postings += indptr[term + 1] - indptr[term]
    return postings * candidate_cost <= n_docs


@_jit
def _rank_one_query(terms, corpus, workspace, heap_scores, heap_docs, capacity, tile, candidate_cost):
    """Score one query in the workspace's tile scores (zeros on entry and on return); its hits best first.

    Returns the number of hits and whether every document was scored (not only candidates).
    """
    indptr, indices, data, dense_slot, dense_codes, dense_values, _, doc_ids = corpus
    part, _, _, _, maxima, _ = workspace
    n_docs = doc_ids.shape[0]
    size = -1
    if candidate_cost >= 0 and _candidates_pay(terms, indptr, dense_slot, n_docs, tile, candidate_cost):
        size = rank_candidates(terms, corpus, workspace, heap_scores, heap_docs, capacity, tile)
    if size >= 0:
        sort_heap(heap_scores, heap_docs, doc_ids, size)
        return size, False
    # A dense-row term could lift a document outside the candidates into the hits: score them all.
    size = 0
    slots = dense_slot[terms]
    # Tile by tile, so the tile's scores stay in cache while every token adds to them in query
    # order; a posting list is read from where the previous tile left it.
    cursors = indptr[terms].copy()
    for lo in range(0, n_docs, tile):
        hi = min(n_docs, lo + tile)
        if terms.shape[0] == 0 or slots[0] < 0:
            part[: hi - lo] = 0.0
        position = 0
        while position < terms.shape[0]:
            term = terms[position]
            if slots[position] >= 0:  # a run of dense-row tokens, in one pass
                stop = position + 1
                while stop < terms.shape[0] and slots[stop] >= 0:
                    stop += 1
                add_dense_run(part, lo, hi, dense_codes, dense_values, slots[position:stop], position == 0)
                position = stop
                continue
            if hi == n_docs:  # the last tile holds every posting left: no bound to test
                for entry in range(cursors[position], indptr[term + 1]):
                    part[indices[entry] - lo] += data[entry]
            else:
                entry, end = cursors[position], indptr[term + 1]
                while entry < end and indices[entry] < hi:
                    part[indices[entry] - lo] += data[entry]
                    entry += 1
                cursors[position] = entry
            position += 1
        size = _rank_tile(part[: hi - lo], lo, maxima, doc_ids, heap_scores, heap_docs, size, capacity)
    part[:] = 0.0  # for the next query's candidates
    sort_heap(heap_scores, heap_docs, doc_ids, size)
    return size, True


@_jit
def _rank_queries(query_terms, query_offsets, corpus, depth, tile, candidate_cost):
    n_queries = query_offsets.shape[0] - 1
    n_docs = corpus[-1].shape[0]
    capacity = min(depth, n_docs)
    hit_docs = np.zeros((n_queries, capacity), dtype=np.int64)
    hit_scores = np.zeros((n_queries, capacity), dtype=np.float64)
    hit_counts = np.zeros(n_queries, dtype=np.int64)
    scored_every_document = np.zeros(n_queries, dtype=np.bool_)
    workspace = (
        np.zeros(min(n_docs, tile), dtype=np.float64),  # a tile's scores (zeros between queries)
        np.empty(n_docs, dtype=np.int64),  # the candidates
        np.empty(n_docs, dtype=np.float64),  # their scores
        np.zeros(BUCKETS + 1, dtype=np.int64),  # their score histogram
        np.zeros((min(n_docs, tile) + BLOCK - 1) // BLOCK, dtype=np.float64),  # a tile's block maxima
        np.zeros((min(n_docs, tile) + 63) // 64, dtype=np.int64),  # a tile's candidates, one bit each
    )
    for query in range(n_queries):
        terms = query_terms[query_offsets[query] : query_offsets[query + 1]]
        hit_counts[query], scored_every_document[query] = _rank_one_query(
            terms, corpus, workspace, hit_scores[query], hit_docs[query], capacity, tile, candidate_cost
        )
    return hit_docs, hit_scores, hit_counts, scored_every_document


def _parts(n_queries: int, threads: int) -> list[tuple[int, int]]:
    """Query ranges for ``threads`` threads: several per thread, so that they finish together."""
    size = max(CHUNK, -(-n_queries // (threads * PARTS_PER_THREAD)))
    return [(lo, min(n_queries, lo + size)) for lo in range(0, n_queries, size)]


def rank_queries(
    query_terms: np.ndarray,
    query_offsets: np.ndarray,
    weights,
    dense_slot: np.ndarray,
    dense_codes: np.ndarray,
    dense_values: np.ndarray,
    term_maxima: np.ndarray,
    doc_ids: np.ndarray,
    depth: int,
    *,
    threads: int | None = None,
    tile: int = TILE,
    candidates: bool = True,
    candidate_cost: int = CANDIDATE_COST,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each query's best ``depth`` document positions, their scores, how many there are, and
    whether every document was scored (rather than only its candidates).

    ``query_terms[query_offsets[i]:query_offsets[i + 1]]`` are query i's known term ids in
    query order; ``weights`` the index's term-by-document CSR matrix; ``dense_slot`` each
    term's dense row (-1: none), whose weight at a document is
    ``dense_values[row, dense_codes[row, document]]``; ``term_maxima`` each term's largest weight. ``threads``:
    queries are shared among this many threads (default: one); ``tile``: documents per
    tile of a query scored in full; ``candidates=False`` scores every query in full;
    ``candidate_cost``: when the score row exceeds a tile, a query is ranked on its candidates
    first only if its rare terms' postings times this are at most the documents (0: always).
    The results depend on none of them; tests pass small tiles and each way.
    """
    threads = 1 if threads is None else max(1, int(threads))
    corpus = (
        weights.indptr.astype(np.int64, copy=False),
        weights.indices,
        weights.data,
        dense_slot,
        dense_codes,
        dense_values,
        term_maxima,
        doc_ids,
    )
    settings = (depth, tile, int(candidate_cost) if candidates else -1)
    parts = _parts(query_offsets.shape[0] - 1, threads)
    if threads == 1 or len(parts) == 1:
        return _rank_queries(query_terms, query_offsets, corpus, *settings)

    def rank_part(bounds: tuple[int, int]):
        # The kernel releases the GIL: each thread ranks its part on its own core.
        offsets = query_offsets[bounds[0] : bounds[1] + 1]
        return _rank_queries(query_terms[offsets[0] : offsets[-1]], offsets - offsets[0], corpus, *settings)

    with ThreadPoolExecutor(max_workers=threads) as pool:
        ranked = list(pool.map(rank_part, parts))
    return tuple(np.concatenate(arrays) for arrays in zip(*ranked))
