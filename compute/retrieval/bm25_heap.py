"""The bounded heap that keeps a query's best hits in BM25's numba kernel (:mod:`biaswh.compute.retrieval.bm25_kernel`).

A min-heap under the tie rule (score descending, then doc_id ascending): its root is the worst
hit kept, so a new document enters only by beating it. Imported only when numba is used.
"""

from __future__ import annotations

import numba


def _jit(function):
    return numba.njit(cache=True, nogil=True)(function)


@_jit
def _beats(score_a, id_a, score_b, id_b):
    # The tie rule: a higher score wins; of equal scores, the lower doc_id.
    return score_a > score_b or (score_a == score_b and id_a < id_b)


@_jit
def _ranks_above(heap_scores, heap_docs, doc_ids, a, b):
    # Whether the hit at position a beats the one at b.
    return _beats(heap_scores[a], doc_ids[heap_docs[a]], heap_scores[b], doc_ids[heap_docs[b]])


@_jit
def _swap(heap_scores, heap_docs, a, b):
    heap_scores[a], heap_scores[b] = heap_scores[b], heap_scores[a]
    heap_docs[a], heap_docs[b] = heap_docs[b], heap_docs[a]


@_jit
def _sift_down(heap_scores, heap_docs, doc_ids, size, at):
    # A min-heap of the kept hits: the root is the worst under the tie rule.
    while True:
        child = 2 * at + 1
        if child >= size:
            return
        right = child + 1
        if right < size and _ranks_above(heap_scores, heap_docs, doc_ids, child, right):
            child = right
        if not _ranks_above(heap_scores, heap_docs, doc_ids, at, child):
            return
        _swap(heap_scores, heap_docs, at, child)
        at = child


@_jit
def _sift_up(heap_scores, heap_docs, doc_ids, at):
    while at > 0:
        parent = (at - 1) // 2
        if not _ranks_above(heap_scores, heap_docs, doc_ids, parent, at):
            return
        _swap(heap_scores, heap_docs, at, parent)
        at = parent


@_jit
def offer(score, doc, heap_scores, heap_docs, doc_ids, size, capacity):
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


@_jit
def sort_heap(heap_scores, heap_docs, doc_ids, size):
    """Heap sort in place: the worst goes to the end, so positions 0..size-1 end best first."""
    for last in range(size - 1, 0, -1):
        _swap(heap_scores, heap_docs, 0, last)
        _sift_down(heap_scores, heap_docs, doc_ids, last, 0)
