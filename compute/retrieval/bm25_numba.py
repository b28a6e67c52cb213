"""When BM25's search runs the optional numba kernel (:mod:`biaswh.compute.retrieval.bm25_kernel`).

Where numba is installed (the ``bench`` extra), a batch of queries large enough to repay
loading numba is scored and ranked in one compiled loop, with the same hits and bit-for-bit
the same scores as the NumPy path (both equal rank_bm25's). ``BIASWH_BM25_NUMBA=0`` keeps
every batch on the NumPy path, ``=1`` sends every batch to the kernel. Only for corpora whose
weights are all positive (a hit is then exactly a positive score).

Why numba at all: on SQuAD train a query's full score row takes about 49,000 postings, and a
NumPy scatter-add costs about 4 ns a posting plus its Python calls, where the compiled loop
scores only the about 4,000 documents holding one of the query's rarer terms (about 5,000
postings) and gathers the very common terms' weights for those alone, whenever a bound shows
no other document can reach the hits (97% of SQuAD train's questions).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from itertools import chain, repeat

import numpy as np

from biaswh.warehouse.errors import UserError

DISABLE_VARIABLE = "BIASWH_BM25_NUMBA"
# Terms in at least 1/4 of the documents are added as dense rows: one vectorised pass over the
# score row beats scattering that many postings one by one (measured on SQuAD train).
KERNEL_DENSE_FRACTION = 4
# numba's import and the load of its cached code take about a second: below this many
# (query, document) cells a batch is ranked faster by the NumPy path than that costs.
KERNEL_MIN_CELLS = 40_000_000


THREADS_VARIABLE = "BIASWH_BM25_THREADS"


def default_threads() -> int:
    """The threads a study's batch is ranked on by the kernel: ``BIASWH_BM25_THREADS``, else
    ``OMP_NUM_THREADS`` (Ray sets it to a worker's CPUs), else the CPUs this process may run on.
    The hits do not depend on it."""
    for variable in (THREADS_VARIABLE, "OMP_NUM_THREADS"):
        value = os.environ.get(variable, "").strip()
        if value:
            if not value.isdigit() or int(value) < 1:
                raise UserError(f"{variable}={value!r}: the number of threads must be a whole number of at least 1")
            return int(value)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


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


def _kernel_dense_rows(index) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The dense rows the kernel adds whole (terms in 1/KERNEL_DENSE_FRACTION of the documents that
    have an index dense row): each term's slot (-1: none), and per slot each document's code into
    that slot's table of weights (code 0: weight 0.0, the term is absent).

    A term's weights take few distinct values (one per term frequency and document length met:
    at most 3,084 on the 1 M-document corpus), so a uint16 code per document reads a quarter of
    the float64 row's bytes for the very same float64 weight (the full path streams these rows).
    """
    rows = getattr(index, "_kernel_dense_rows", None)
    if rows is None:
        weights = index.weights
        frequencies = np.diff(weights.indptr)
        terms = np.flatnonzero((frequencies * KERNEL_DENSE_FRACTION >= index.n_docs) & (index._dense_slot >= 0))
        slot = np.full(len(frequencies), -1, dtype=np.int64)
        slot[terms] = np.arange(len(terms))
        tables, inverses = [], []
        for term in terms.tolist():
            postings = slice(weights.indptr[term], weights.indptr[term + 1])
            values, inverse = np.unique(weights.data[postings], return_inverse=True)
            tables.append(values)
            inverses.append(inverse)
        width = 1 + max((len(values) for values in tables), default=0)
        codes = np.zeros((len(terms), index.n_docs), dtype=np.uint16 if width <= 2**16 else np.uint32)
        table = np.zeros((len(terms), width), dtype=np.float64)
        for row, term in enumerate(terms.tolist()):
            codes[row, weights.indices[weights.indptr[term] : weights.indptr[term + 1]]] = inverses[row] + 1
            table[row, 1 : 1 + len(tables[row])] = tables[row]
        rows = index._kernel_dense_rows = (slot, codes, table)
    return rows


def _kernel_dense_slot(index) -> np.ndarray:
    """Each term's kernel dense row (-1: none); see :func:`_kernel_dense_rows`."""
    return _kernel_dense_rows(index)[0]


def _term_maxima(index) -> np.ndarray:
    """Each term's largest weight (0 for a term of no document here): they bound a query's scores."""
    maxima = getattr(index, "_term_maxima", None)
    if maxima is None:
        weights = index.weights
        maxima = np.zeros(weights.shape[0], dtype=np.float64)
        has_postings = np.diff(weights.indptr) > 0
        maxima[has_postings] = np.maximum.reduceat(weights.data, weights.indptr[:-1][has_postings])
        index._term_maxima = maxima
    return maxima


def known_term_ids(index, token_lists) -> tuple[np.ndarray, np.ndarray]:
    """The term ids of the tokens the corpus uses, all queries in a row, and each query's offset into them."""
    n_tokens = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
    # One C-level pass over every token: an unknown token maps to -1 and is dropped.
    flat = np.fromiter(
        map(index.vocabulary.get, chain.from_iterable(token_lists), repeat(-1)),
        dtype=np.int64,
        count=int(n_tokens.sum()),
    )
    is_known = flat >= 0
    query_of_token = np.repeat(np.arange(len(token_lists)), n_tokens)
    offsets = np.zeros(len(token_lists) + 1, dtype=np.int64)
    np.cumsum(np.bincount(query_of_token[is_known], minlength=len(token_lists)), out=offsets[1:])
    return flat[is_known], offsets


def rank_terms(
    index,
    terms: np.ndarray,
    offsets: np.ndarray,
    depth: int,
    *,
    threads: int | None = None,
    tile: int | None = None,
    candidates: bool = True,
    candidate_cost: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The kernel's ranking of queries given as term ids (``terms[offsets[i]:offsets[i + 1]]``).

    Returns per query (rows) the hits' doc_ids and scores best first, how many hits there are,
    and whether every document was scored (not only the candidates its rare terms name).
    ``candidates=False`` scores every document of every query (the same hits; for tests and
    the benchmark's profile); ``tile``: documents per tile when a query is scored in full;
    ``candidate_cost``: see :func:`biaswh.compute.retrieval.bm25_kernel.rank_queries` (0: the
    candidates are always tried first).
    """
    from biaswh.compute.retrieval.bm25_kernel import CANDIDATE_COST, TILE, rank_queries

    positions, scores, counts, scored_every_document = rank_queries(
        terms,
        offsets,
        index.weights,
        *_kernel_dense_rows(index),
        _term_maxima(index),
        index.doc_ids,
        depth,
        threads=threads,
        tile=tile or TILE,
        candidates=candidates,
        candidate_cost=CANDIDATE_COST if candidate_cost is None else candidate_cost,
    )
    return index.doc_ids[positions], scores, counts, scored_every_document


def rank_token_lists(index, token_lists, depth: int, *, threads: int | None = None) -> list:
    """Each query's (doc_ids, scores) best first, from its tokens."""
    doc_ids, scores, counts, _ = rank_terms(index, *known_term_ids(index, token_lists), depth, threads=threads)
    return [(doc_ids[row, :count], scores[row, :count]) for row, count in enumerate(counts.tolist())]


def rank_known_terms(
    index,
    known: list[list[int]],
    depth: int,
    *,
    threads: int | None = None,
    tile: int | None = None,
    candidates: bool = True,
    candidate_cost: int | None = None,
) -> list:
    """Each query's (doc_ids, scores) best first, from its known term ids in query order (options as
    :func:`rank_terms`'s)."""
    lengths = np.fromiter(map(len, known), dtype=np.int64, count=len(known))
    offsets = np.zeros(len(known) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    terms = np.fromiter(chain.from_iterable(known), dtype=np.int64, count=int(offsets[-1]))
    doc_ids, scores, counts, _ = rank_terms(
        index, terms, offsets, depth, threads=threads, tile=tile, candidates=candidates, candidate_cost=candidate_cost
    )
    return [(doc_ids[row, :count], scores[row, :count]) for row, count in enumerate(counts.tolist())]
