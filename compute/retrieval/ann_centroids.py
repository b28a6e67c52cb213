"""Seeded partition centroids for an ANN index: spherical k-means over unit document vectors.

LanceDB 0.40 (Lance 13.0.0) trains an IVF index's k-means from an operating-system random
start (``SmallRng::from_os_rng()`` in lance-index's ``kmeans.rs``, with a "TODO: use seed"; no
parameter or environment variable seeds it), so two builds of one index over the same vectors
partition the corpus otherwise and a query probing some partitions finds other documents. The
index is therefore given its centroids (:func:`partition_centroids`), trained here with a seed
derived from the study's seed; Lance keeps them as given and puts each document in the
partition of its nearest centroid (:mod:`biaswh.compute.retrieval.ann`).

The index searches by cosine distance, so the centroids are trained by it: unit vectors,
each assigned to the centroid of highest dot product, each centroid the normalised sum of its
members (spherical k-means), started by k-means++ and stopped when no assignment changes.
Products are float64 on one BLAS thread, so the same vectors and seed give the same bits.
"""

from __future__ import annotations

import numpy as np

from biaswh.compute.common.blas import one_blas_thread
from biaswh.compute.retrieval.dense import unit_rows
from biaswh.warehouse.errors import UserError

# As Lance does by default (its IVF ``sample_rate``): train on at most this many vectors per partition.
SAMPLE_PER_PARTITION = 256
MAX_ITERATIONS = 50


def partition_centroids(
    vectors: np.ndarray, n_partitions: int, *, seed: int, max_iterations: int = MAX_ITERATIONS
) -> np.ndarray:
    """``n_partitions`` unit centroids (float32 rows) of ``vectors`` by cosine similarity; same ``seed``, same bits.

    At most ``SAMPLE_PER_PARTITION`` vectors per partition are trained on, a seeded sample of them.
    """
    data = unit_rows(vectors).astype(np.float64)
    if not 1 <= n_partitions <= len(data):
        raise UserError(f"an ANN index of {len(data)} documents cannot have {n_partitions} partitions")
    rng = np.random.default_rng(seed)
    if len(data) > n_partitions * SAMPLE_PER_PARTITION:
        data = data[np.sort(rng.choice(len(data), n_partitions * SAMPLE_PER_PARTITION, replace=False))]
    with one_blas_thread():
        centroids = _plus_plus_start(data, n_partitions, rng)
        members = None
        for _ in range(max_iterations):
            assigned = np.argmax(data @ centroids.T, axis=1)
            if members is not None and np.array_equal(assigned, members):
                break
            members = assigned
            centroids = _centroids_of(data, members, centroids)
    return centroids.astype(np.float32)


def _plus_plus_start(data: np.ndarray, n_partitions: int, rng: np.random.Generator) -> np.ndarray:
    """k-means++: a first vector at random, then each next one with probability in proportion to
    its squared cosine distance from the nearest chosen (uniform among the rest when all are chosen's copies)."""
    chosen = [int(rng.integers(len(data)))]
    distance = np.clip(1.0 - data @ data[chosen[0]], 0.0, None)
    for _ in range(1, n_partitions):
        weights = distance**2
        weights[chosen] = 0.0
        if weights.sum() == 0:
            weights = np.ones(len(data))
            weights[chosen] = 0.0
        chosen.append(int(rng.choice(len(data), p=weights / weights.sum())))
        distance = np.minimum(distance, np.clip(1.0 - data @ data[chosen[-1]], 0.0, None))
    return data[chosen].copy()


def _centroids_of(data: np.ndarray, members: np.ndarray, previous: np.ndarray) -> np.ndarray:
    """Each partition's normalised member sum; a partition left empty (or summing to zero) keeps its centroid."""
    sums = np.zeros_like(previous)
    np.add.at(sums, members, data)
    norms = np.linalg.norm(sums, axis=1, keepdims=True)
    return np.where(norms > 0, sums / np.where(norms > 0, norms, 1.0), previous)
