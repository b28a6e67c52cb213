"""The dense-row passes of BM25's numba kernel over one tile (:mod:`biaswh.compute.retrieval.bm25_kernel`).

A run of consecutive dense-row tokens of a query is added in one pass over the tile, each
document's score taking the run's weights left to right, ``((score + a) + b) + c``: the same
rounded sums as one pass per token, with the tile's scores read and written once per run
instead of once per token. The first token of a query assigns instead of adding to zeros
(``0.0 + w == w`` exactly). Imported only when numba is used.
"""

from __future__ import annotations

import numba


def _jit(function):
    return numba.njit(cache=True, nogil=True)(function)


@_jit
def _one(part, c0, t0, first):
    if first:
        for doc in range(part.shape[0]):
            part[doc] = t0[c0[doc]]
    else:
        for doc in range(part.shape[0]):
            part[doc] += t0[c0[doc]]


@_jit
def _two(part, c0, t0, c1, t1, first):
    if first:  # (0 + a) + b is a + b
        for doc in range(part.shape[0]):
            part[doc] = t0[c0[doc]] + t1[c1[doc]]
    else:
        for doc in range(part.shape[0]):
            part[doc] = (part[doc] + t0[c0[doc]]) + t1[c1[doc]]


@_jit
def _three(part, c0, t0, c1, t1, c2, t2, first):
    if first:
        for doc in range(part.shape[0]):
            part[doc] = (t0[c0[doc]] + t1[c1[doc]]) + t2[c2[doc]]
    else:
        for doc in range(part.shape[0]):
            part[doc] = ((part[doc] + t0[c0[doc]]) + t1[c1[doc]]) + t2[c2[doc]]


@_jit
def _four(part, c0, t0, c1, t1, c2, t2, c3, t3, first):
    if first:
        for doc in range(part.shape[0]):
            part[doc] = ((t0[c0[doc]] + t1[c1[doc]]) + t2[c2[doc]]) + t3[c3[doc]]
    else:
        for doc in range(part.shape[0]):
            part[doc] = (((part[doc] + t0[c0[doc]]) + t1[c1[doc]]) + t2[c2[doc]]) + t3[c3[doc]]


@_jit
def add_dense_run(part, lo, hi, codes, values, slots, first):
    """Add the dense rows ``slots`` (a run of consecutive query tokens, in query order) to the
    scores of documents lo..hi-1 held in ``part[0:hi - lo]``; ``first``: the run starts the
    query, so ``part`` is not read (it may hold anything)."""
    part = part[: hi - lo]
    start = 0
    while start < slots.shape[0]:  # four tokens a pass at most
        n, first = min(4, slots.shape[0] - start), first and start == 0
        c0, t0 = codes[slots[start], lo:hi], values[slots[start]]
        if n == 1:
            _one(part, c0, t0, first)
            break
        c1, t1 = codes[slots[start + 1], lo:hi], values[slots[start + 1]]
        if n == 2:
            _two(part, c0, t0, c1, t1, first)
            break
        c2, t2 = codes[slots[start + 2], lo:hi], values[slots[start + 2]]
        if n == 3:
            _three(part, c0, t0, c1, t1, c2, t2, first)
            break
        c3, t3 = codes[slots[start + 3], lo:hi], values[slots[start + 3]]
        _four(part, c0, t0, c1, t1, c2, t2, c3, t3, first)
        start += 4


@_jit
def add_dense_run_at(part, lo, docs, codes, values, slots):
    """Add the dense rows ``slots`` (a run of consecutive query tokens, in query order) to the
    scores of the documents ``docs`` (all in lo..lo + part's length), held at ``part[doc - lo]``."""
    start = 0
    while start < slots.shape[0]:  # three tokens a pass at most
        n = min(3, slots.shape[0] - start)
        c0, t0 = codes[slots[start]], values[slots[start]]
        if n == 1:
            for doc in docs:
                part[doc - lo] += t0[c0[doc]]
            break
        c1, t1 = codes[slots[start + 1]], values[slots[start + 1]]
        if n == 2:
            for doc in docs:
                part[doc - lo] = (part[doc - lo] + t0[c0[doc]]) + t1[c1[doc]]
            break
        c2, t2 = codes[slots[start + 2]], values[slots[start + 2]]
        for doc in docs:
            part[doc - lo] = ((part[doc - lo] + t0[c0[doc]]) + t1[c1[doc]]) + t2[c2[doc]]
        start += 3
