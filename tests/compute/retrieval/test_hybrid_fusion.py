"""Hybrid fusion, checked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from biaswh.compute.retrieval.hybrid import min_max_fusion, reciprocal_rank_fusion, union_of_top_k, weight_grid
from biaswh.compute.retrieval.ranking import QueryHits, no_hits


def hits(doc_ids, scores):
    return QueryHits(np.asarray(doc_ids, np.int64), np.asarray(scores, np.float64))


BM25 = hits([1, 2, 3], [10.0, 6.0, 2.0])
DENSE = hits([3, 4, 1], [0.9, 0.7, 0.5])


def test_union_rank_is_the_depth_at_which_a_document_joins():
    union = union_of_top_k(BM25, DENSE)
    assert dict(zip(union.doc_ids.tolist(), union.ranks.tolist())) == {1: 1, 3: 1, 2: 2, 4: 2}
    assert union.doc_ids.tolist() == [1, 3, 2, 4]  # by rank, then doc_id


def test_min_max_fusion_by_hand():
    fused = min_max_fusion(BM25, DENSE, weight_a=0.5, weight_b=0.5, depth=10)
    # bm25 scaled: 1 -> 1.0, 2 -> 0.5, 3 -> 0.0; dense scaled: 3 -> 1.0, 4 -> 0.5, 1 -> 0.0
    expected = {1: 0.5, 2: 0.25, 3: 0.5, 4: 0.25}
    assert dict(zip(fused.doc_ids.tolist(), fused.scores.tolist())) == pytest.approx(expected)
    assert fused.doc_ids.tolist() == [1, 3, 2, 4]
    weighted = min_max_fusion(BM25, DENSE, weight_a=0.8, weight_b=0.2, depth=2)
    assert weighted.doc_ids.tolist() == [1, 2]
    assert weighted.scores.tolist() == pytest.approx([0.8, 0.4])


def test_min_max_fusion_edge_cases():
    flat = min_max_fusion(hits([5, 6], [3.0, 3.0]), no_hits("empty query"), depth=10)
    assert flat.doc_ids.tolist() == [5, 6] and flat.scores.tolist() == [0.5, 0.5]
    none = min_max_fusion(no_hits("empty query"), no_hits("empty query"))
    assert len(none) == 0 and none.reason == "empty query"


def test_reciprocal_rank_fusion_by_hand():
    fused = reciprocal_rank_fusion([BM25, DENSE], k=60, depth=10)
    expected = {1: 1 / 61 + 1 / 63, 2: 1 / 62, 3: 1 / 63 + 1 / 61, 4: 1 / 62}
    assert dict(zip(fused.doc_ids.tolist(), fused.scores.tolist())) == pytest.approx(expected)
    assert fused.doc_ids.tolist() == [1, 3, 2, 4]
    assert reciprocal_rank_fusion([BM25, DENSE], k=0, depth=1).scores.tolist() == pytest.approx([1 + 1 / 3])


def test_weight_grid():
    assert weight_grid(0.1) == [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
