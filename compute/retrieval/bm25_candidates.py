"""BM25's numba kernel for a query scored on its candidates only (:mod:`biaswh.compute.retrieval.bm25_kernel`).

A query's candidates are the documents holding one of its rare terms (those without a dense
row). Their scores are the full score row's, bit for bit: every token adds in query order. A
document outside them holds only dense-row terms, so its score is at most the same rounded
sum of each such term's largest weight; when that bound is below the worst kept hit, no
outside document can enter and the query is answered without touching the rest of the corpus
(on SQuAD train, 97% of the questions). Imported only when numba is used.
"""

from __future__ import annotations

import numba
import numpy as np

from biaswh.compute.retrieval.bm25_dense import add_dense_run_at
from biaswh.compute.retrieval.bm25_heap import offer

# Buckets of the score histogram that picks which candidates go through the heap.
BUCKETS = 512


# The lowest set bit of a word, times this de Bruijn constant, has its position in the top six bits.
_DE_BRUIJN = 0x03F79D71B4CB0A89
_BIT_POSITION = np.zeros(64, dtype=np.int64)
for _bit in range(64):
    _BIT_POSITION[(((1 << _bit) * _DE_BRUIJN) % 2**64) >> 58] = _bit


@numba.njit(cache=True, nogil=True)
def _list_marked(marks, lo, candidates, n_candidates):
    """Append the documents lo + i whose bit i is set in ``marks`` to the candidates, in order;
    clear the marks. Returns the new number of candidates."""
    for word in range(marks.shape[0]):
        bits = marks[word]
        if bits != 0:
            marks[word] = 0
            base = lo + 64 * word
            while bits != 0:
                lowest = bits & -bits
                candidates[n_candidates] = base + _BIT_POSITION[((lowest * _DE_BRUIJN) >> 58) & 63]
                n_candidates += 1
                bits ^= lowest
    return n_candidates


@numba.njit(cache=True, nogil=True)
def rank_candidates(terms, corpus, workspace, heap_scores, heap_docs, capacity, tile):
    """Rank only the documents holding a query term that has no dense row (the candidates).

    Returns the heap's size, or -1 when a document holding only dense-row terms could still
    enter the hits (the caller then scores every document). ``corpus`` and ``workspace`` are
    the kernel's (:func:`biaswh.compute.retrieval.bm25_kernel.rank_queries`); the workspace's
    tile scores are zeros on entry and on return. The documents are taken ``tile`` at a time,
    so the scores being added to (and the dense rows read at them) stay in cache.
    """
    indptr, indices, data, dense_slot, dense_codes, dense_values, term_maxima, doc_ids = corpus
    part, candidates, values, buckets, _, marks = workspace
    n_docs = doc_ids.shape[0]
    slots = dense_slot[terms]
    n_candidates = 0
    has_dense = False
    # A document outside the candidates scores the rounded sum, in query order, of its dense-row
    # weights; rounded addition is monotone, so the same sum of each term's largest weight bounds it.
    bound = upper = 0.0
    for position in range(terms.shape[0]):
        term = terms[position]
        upper += term_maxima[term]
        if dense_slot[term] >= 0:
            has_dense = True
            bound += term_maxima[term]
    cursors = indptr[terms].copy()  # where each token's postings resume in the next tile
    ends = cursors.copy()  # and where they end in this tile
    # The candidates' scores are counted in a histogram as they are collected, ``upper`` bounding
    # every score (as ``bound`` does the outside documents').
    scale = BUCKETS / max(upper, 1e-300)
    buckets[:] = 0
    for lo in range(0, n_docs, tile):
        hi = min(n_docs, lo + tile)
        first = n_candidates  # this tile's candidates start here
        # The tile's candidates are first marked and listed in document order, so that every
        # token then adds, in query order, to exactly the documents it concerns, without a
        # branch per posting on whether its document was met before: on the 1 M corpus its
        # 1,421 candidate-ranked queries took 2.66 CPU s this way, 3.54 s with that branch.
        for position in range(terms.shape[0]):
            term = terms[position]
            if dense_slot[term] < 0:
                entry, end = cursors[position], indptr[term + 1]
                while entry < end and indices[entry] < hi:
                    offset = indices[entry] - lo
                    marks[offset >> 6] |= np.int64(1) << (offset & 63)
                    entry += 1
                ends[position] = entry
        n_candidates = _list_marked(marks, lo, candidates, n_candidates)
        # Token by token in query order, the sums of the full score row: a run of dense-row terms
        # adds its weights (0.0 where absent) to every candidate, a rare term to those holding it.
        # The tile's scores are a tile-sized row that stays in cache: indexing the whole row
        # instead cost 0.87 ms per query in missed lines on the 1 M corpus.
        position = 0
        while position < terms.shape[0]:
            if slots[position] >= 0:
                stop = position + 1
                while stop < terms.shape[0] and slots[stop] >= 0:
                    stop += 1
                docs = candidates[first:n_candidates]
                add_dense_run_at(part, lo, docs, dense_codes, dense_values, slots[position:stop])
                position = stop
                continue
            for entry in range(cursors[position], ends[position]):
                part[indices[entry] - lo] += data[entry]
            cursors[position] = ends[position]
            position += 1
        for candidate in range(first, n_candidates):  # the tile's scores, in order; its row cleared
            offset = candidates[candidate] - lo
            score = part[offset]
            values[candidate] = score
            buckets[min(BUCKETS, int(score * scale))] += 1
            part[offset] = 0.0
    if has_dense and n_candidates < capacity:  # documents outside would enter the hits
        return -1
    # Only the scores in the histogram's top buckets holding ``capacity`` of them go through the
    # heap (which applies the tie rule): a few more than ``capacity`` heap operations, not one
    # per better score met in document order.
    lowest, reached = BUCKETS, buckets[BUCKETS]
    while reached < capacity and lowest > 0:
        lowest -= 1
        reached += buckets[lowest]
    size = 0
    for candidate in range(n_candidates):
        score = values[candidate]
        # The bucket is at least ``lowest`` (at most BUCKETS) exactly when score * scale is.
        if score * scale >= lowest and (size < capacity or score >= heap_scores[0]):
            size = offer(score, candidates[candidate], heap_scores, heap_docs, doc_ids, size, capacity)
    # Strictly below the worst kept hit: no outside document can enter, not even by a tie.
    return size if not has_dense or capacity == 0 or bound < heap_scores[0] else -1
