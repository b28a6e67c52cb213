"""When BM25's search runs the optional numba kernel (:mod:`biaswh.compute.retrieval.bm25_kernel`).

Where numba is installed (the ``bench`` extra), a batch of queries large enough to repay
loading numba is scored and ranked in one compiled loop, with the same hits and bit-for-bit
the same scores as the NumPy path (both equal rank_bm25's). ``BIASWH_BM25_NUMBA=0`` keeps
every batch on the NumPy path, ``=1`` sends every batch to the kernel. Only for corpora whose
weights are all positive (a hit is then exactly a positive score).

Why numba at all: on SQuAD train a query spends its time adding about 46,000 postings, and a
NumPy scatter-add costs about 4 ns a posting plus its Python calls, where the compiled loop
adds the few very common terms as whole dense rows and ranks with one pass over block maxima.
"""

from __future__ import annotations

import importlib.util
import os
import sys

import numpy as np

DISABLE_VARIABLE = "BIASWH_BM25_NUMBA"
# Terms in at least 1/4 of the documents are added as dense rows: one vectorised pass over the
# score row beats scattering that many postings one by one (measured on SQuAD train).
KERNEL_DENSE_FRACTION = 4
# numba's import and the load of its cached code take about a second: below this many
# (query, document) cells a batch is ranked faster by the NumPy path than that costs.
KERNEL_MIN_CELLS = 40_000_000


def available() -> bool:
    """True when numba is installed and not switched off with ``BIASWH_BM25_NUMBA=0``."""
    if os.environ.get(DISABLE_VARIABLE, "1") == "0":
        return False
    return "numba" in sys.modules or importlib.util.find_spec("numba") is not None


def pays(n_queries: int, n_docs: int) -> bool:
    """Whether the kernel should rank this batch: numba is available and either already loaded
    or the batch large enough to repay loading it (``BIASWH_BM25_NUMBA=1`` forces it)."""
    if not available():
        return False
    forced = os.environ.get(DISABLE_VARIABLE) == "1"
    return forced or "biaswh.compute.retrieval.bm25_kernel" in sys.modules or n_queries * n_docs >= KERNEL_MIN_CELLS


def _kernel_dense_slot(index) -> np.ndarray:
    """The index's dense rows the kernel adds whole: those of terms in 1/KERNEL_DENSE_FRACTION of the documents."""
    slot = getattr(index, "_kernel_dense_slot", None)
    if slot is None:
        frequencies = np.diff(index.weights.indptr)
        slot = np.where(frequencies * KERNEL_DENSE_FRACTION >= index.n_docs, index._dense_slot, -1)
        index._kernel_dense_slot = slot
    return slot


def rank_known_terms(
    index, known: list[list[int]], depth: int, *, threads: int | None = None, tile: int | None = None
) -> list:
    """Each query's (doc_ids, scores) best first, from its known term ids in query order."""
    lengths = np.fromiter(map(len, known), dtype=np.int64, count=len(known))
    offsets = np.zeros(len(known) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    terms = np.fromiter((term for terms in known for term in terms), dtype=np.int64, count=int(offsets[-1]))
    from biaswh.compute.retrieval.bm25_kernel import TILE, rank_queries

    positions, scores, counts = rank_queries(
        terms,
        offsets,
        index.weights,
        _kernel_dense_slot(index),
        index._dense_weights,
        index.doc_ids,
        depth,
        threads=threads,
        tile=tile or TILE,
    )
    doc_ids = index.doc_ids[positions]
    return [(doc_ids[row, :count], scores[row, :count]) for row, count in enumerate(counts.tolist())]
