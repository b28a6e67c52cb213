"""BM25's parameters and a corpus's idf statistics, computed as ``rank_bm25.BM25Okapi`` computes them.

:class:`biaswh.compute.retrieval.bm25.BM25Index` builds its weights from these; an index over
one shard of a corpus takes the whole corpus's :class:`CorpusStatistics`
(:mod:`biaswh.compute.retrieval.shards`), so its scores equal the unsharded index's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class BM25Parameters:
    """rank_bm25's BM25Okapi defaults."""

    k1: float = 1.5
    b: float = 0.75
    epsilon: float = 0.25


@dataclass(frozen=True)
class CorpusStatistics:
    """The whole corpus's BM25 statistics, for an index over one shard of it.

    ``idf``: each term of the shard and its (floored) idf over the whole corpus;
    ``average_length``: tokens per document over the whole corpus. With these a shard's
    weights are the unsharded index's weights, bit for bit (see :mod:`biaswh.compute.retrieval.shards`).
    """

    n_docs: int
    vocabulary_size: int
    average_length: float
    average_idf: float
    idf: dict[str, float]


def idf_values(document_frequencies: list[int], n_docs: int, epsilon: float) -> tuple[np.ndarray, float]:
    """Each term's idf (floored at ``epsilon`` times the mean) and that mean, as rank_bm25 computes them.

    ``document_frequencies`` in vocabulary (first-occurrence) order: math.log and a plain
    running sum in that order, as rank_bm25.
    """
    idf = [math.log(n_docs - df + 0.5) - math.log(df + 0.5) for df in document_frequencies]
    idf_sum = 0.0
    for value in idf:
        idf_sum += value
    average_idf = idf_sum / len(idf)
    floor = epsilon * average_idf
    return np.asarray([floor if value < 0 else value for value in idf], dtype=np.float64), average_idf
