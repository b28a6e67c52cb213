"""Same vectors, same seed, same ANN index: the partitions are our seeded k-means's, kept by Lance as given."""

from __future__ import annotations

import lancedb
import numpy as np
import pytest

from biaswh.compute.retrieval.ann import ann_search, ann_table
from biaswh.compute.retrieval.ann_centroids import SAMPLE_PER_PARTITION, partition_centroids
from biaswh.compute.retrieval.dense import DenseIndex, unit_rows
from biaswh.warehouse.errors import UserError

N_PARTITIONS = 8


@pytest.fixture(scope="module")
def corpus():
    rng = np.random.default_rng(20261129)
    documents = rng.normal(size=(1200, 24)).astype(np.float32)
    queries = rng.normal(size=(30, 24)).astype(np.float32)
    return DenseIndex(np.arange(500, 500 + len(documents)), documents), queries


def _search(corpus, folder, *, seed: int, index: str = "ivf_flat"):
    """(the table, each query's (ids, scores)) of an index built in ``folder``, probing 1 partition of 8."""
    dense, queries = corpus
    table = ann_table(dense, lancedb_dir=folder, index=index, seed=seed, n_partitions=N_PARTITIONS, n_probes=1)
    hits = ann_search(table, queries, lancedb_dir=folder, depth=10)
    return table, [(h.doc_ids.tolist(), h.scores.tolist()) for h in hits]


def _stored_partitions(folder, table, monkeypatch) -> tuple[np.ndarray, list[int]]:
    """The centroids the built index holds, and how many documents each partition holds."""
    monkeypatch.setenv("LANCE_INCLUDE_VECTOR_CENTROIDS", "1")  # index_stats leaves them out otherwise
    dataset = lancedb.connect(str(folder)).open_table(table.name).to_lance()
    (stats,) = dataset.stats.index_stats("vector_idx")["indices"]
    return np.array(stats["centroids"], dtype=np.float32), [p["size"] for p in stats["partitions"]]


def test_two_builds_from_the_same_vectors_and_seed_find_the_same_documents_and_scores(corpus, tmp_path):
    # LanceDB's own k-means starts from an unseeded draw: two builds of this index gave other
    # top 10s for all 30 queries before the centroids were seeded
    first_table, first = _search(corpus, tmp_path / "first", seed=7)
    second_table, second = _search(corpus, tmp_path / "second", seed=7)
    assert first_table.name == second_table.name and first == second
    exact = corpus[0].search(corpus[1], depth=10)
    assert sum(ids != e.doc_ids.tolist() for (ids, _), e in zip(first, exact)) > 0  # probing 1 of 8 misses some
    other_table, other = _search(corpus, tmp_path / "first", seed=8)  # beside it: the seed names its own table
    assert other_table.name != first_table.name and other != first


def test_the_index_holds_the_seeded_centroids_and_each_document_in_its_nearest_ones_partition(
    corpus, tmp_path, monkeypatch
):
    table, _ = _search(corpus, tmp_path, seed=7)
    centroids, sizes = _stored_partitions(tmp_path, table, monkeypatch)
    expected = partition_centroids(corpus[0].vectors, N_PARTITIONS, seed=7)
    assert np.array_equal(centroids, expected)
    nearest = np.argmax(unit_rows(corpus[0].vectors) @ expected.T, axis=1)
    assert sizes == np.bincount(nearest, minlength=N_PARTITIONS).tolist()


def test_an_hnsw_index_is_partitioned_by_the_seeded_centroids_too(corpus, tmp_path, monkeypatch):
    # its graph within a partition is not seeded (Lance 13 draws node levels unseeded): only the partitions are compared
    table, _ = _search(corpus, tmp_path, seed=7, index="ivf_hnsw_sq")
    centroids, _ = _stored_partitions(tmp_path, table, monkeypatch)
    assert np.array_equal(centroids, partition_centroids(corpus[0].vectors, N_PARTITIONS, seed=7))


def test_a_table_left_without_its_index_gets_it_before_it_is_searched(corpus, tmp_path):
    dense, _ = corpus
    table = ann_table(dense, lancedb_dir=tmp_path, index="ivf_flat", seed=7, n_partitions=N_PARTITIONS)
    opened = lancedb.connect(str(tmp_path)).open_table(table.name)
    opened.drop_index("vector_idx")  # as a build stopped between writing the table and indexing it leaves it
    assert not opened.list_indices()
    ann_table(dense, lancedb_dir=tmp_path, index="ivf_flat", seed=7, n_partitions=N_PARTITIONS)
    assert [i.index_type for i in lancedb.connect(str(tmp_path)).open_table(table.name).list_indices()] == ["IvfFlat"]


def test_partition_centroids_are_unit_rows_fixed_by_the_seed():
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(3 * SAMPLE_PER_PARTITION + 5, 6))  # more than 2 partitions train on: a sample
    first = partition_centroids(vectors, 2, seed=11)
    assert first.dtype == np.float32 and np.allclose(np.linalg.norm(first, axis=1), 1, atol=1e-6)
    assert np.array_equal(first, partition_centroids(vectors, 2, seed=11))
    assert not np.array_equal(first, partition_centroids(vectors, 2, seed=12))
    # two tight groups of directions: each centroid lies in one of them
    groups = np.vstack([np.tile([1.0, 0, 0], (20, 1)), np.tile([0, 1.0, 0], (20, 1))]) + rng.normal(0, 0.01, (40, 3))
    found = partition_centroids(groups, 2, seed=1)
    assert sorted(np.argmax(np.abs(found), axis=1).tolist()) == [0, 1]
    with pytest.raises(UserError, match="cannot have 41 partitions"):
        partition_centroids(groups, 41, seed=1)
