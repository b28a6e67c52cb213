"""Dense search: exact cosine against brute-force numpy, and the ANN option's reported recall."""

from __future__ import annotations

import numpy as np
import pytest

from biaswh.compute.retrieval.ann import search_ann
from biaswh.compute.retrieval.config import config_from_settings
from biaswh.compute.retrieval.dense import DenseIndex
from biaswh.warehouse.errors import UserError


@pytest.fixture(scope="module")
def vectors():
    rng = np.random.default_rng(20261122)
    documents = rng.normal(size=(1500, 24)).astype(np.float32)
    queries = rng.normal(size=(12, 24)).astype(np.float32)
    return documents, queries


def test_exact_search_equals_brute_force(vectors):
    documents, queries = vectors
    doc_ids = np.arange(1000, 1000 + len(documents))
    hits = DenseIndex(doc_ids, documents).search(queries, depth=20)
    unit = documents / np.linalg.norm(documents, axis=1, keepdims=True)
    for query, found in zip(queries, hits):
        cosine = unit @ (query / np.linalg.norm(query))
        expected = doc_ids[np.argsort(-cosine, kind="stable")[:20]]
        assert found.doc_ids.tolist() == expected.tolist()
        np.testing.assert_allclose(found.scores, np.sort(cosine)[::-1][:20], atol=1e-5)


def test_exact_search_breaks_ties_by_doc_id_and_skips_blank_queries():
    documents = np.array([[1, 0], [1, 0], [0, 1]], dtype=np.float32)
    hits = DenseIndex([9, 4, 1], documents).search(
        np.array([[1, 0], [1, 0]], np.float32), depth=2, query_texts=["east", " "]
    )
    assert hits[0].doc_ids.tolist() == [4, 9]
    assert len(hits[1]) == 0 and hits[1].reason == "empty query"
    with pytest.raises(UserError, match="no documents"):
        DenseIndex([], np.empty((0, 2)))


def test_ann_index_reports_recall_against_exact(vectors, tmp_path):
    documents, queries = vectors
    index = DenseIndex(np.arange(len(documents)), documents)
    found, report = search_ann(
        index, queries, lancedb_dir=tmp_path, index="ivf_flat", seed=1, depth=10, n_partitions=8, n_probes=2
    )
    exact = index.search(queries, depth=10)
    overlap = np.mean([len(set(a.doc_ids.tolist()) & set(e.doc_ids.tolist())) / 10 for a, e in zip(found, exact)])
    assert report.recall == pytest.approx(overlap)
    assert 0 < report.recall <= 1 and report.n_queries == len(queries) and report.index == "ivf_flat"
    _, all_probes = search_ann(
        index, queries, lancedb_dir=tmp_path, index="ivf_flat", seed=1, depth=10, n_partitions=8, n_probes=8
    )
    assert all_probes.recall >= report.recall
    with pytest.raises(UserError, match="unknown ANN index"):
        search_ann(index, queries, lancedb_dir=tmp_path, index="none", seed=1)


def test_ann_setting_is_checked():
    assert config_from_settings({}).ann_index == "none"
    with pytest.raises(UserError, match=r"\[retrieval.ann\] index"):
        config_from_settings({"ann": {"index": "hnsw_magic"}})
