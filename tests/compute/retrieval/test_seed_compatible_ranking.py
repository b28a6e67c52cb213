"""``bm25_seed_compatible``: rank_bm25's scores ranked as the original notebook ranked them."""

from __future__ import annotations

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from biaswh.compute.retrieval.bm25 import BM25Index
from biaswh.compute.retrieval.config import config_from_settings
from biaswh.compute.retrieval.ranking import EMPTY_QUERY, argsort_reversed_top_k
from biaswh.compute.retrieval.runner import Corpus, Query, run_retrievers
from biaswh.compute.retrieval.tokenize import RegexTokenizer
from biaswh.warehouse.errors import UserError

# Many exact ties (identical documents) and documents without any query token.
DOCUMENTS = [
    "the cat sat on the mat",
    "a dog barked",
    "the cat sat on the mat",
    "cats and dogs",
    "the cat sat on the mat",
    "nothing here",
    "mat mat mat",
]


def test_ranking_is_numpy_argsort_reversed_over_every_document():
    tokenizer = RegexTokenizer()
    oracle = BM25Okapi([tokenizer(d) for d in DOCUMENTS])
    index = BM25Index(DOCUMENTS, doc_ids=[10, 11, 12, 13, 14, 15, 16])
    queries = ["cat mat", "dog", "zebra", "the"]
    found = index.search(queries, depth=5, ranking="seed_compatible")
    for query, hits in zip(queries, found):
        scores = oracle.get_scores(tokenizer(query))
        expected = np.argsort(scores)[::-1][:5]
        assert hits.doc_ids.tolist() == (np.asarray(expected) + 10).tolist()
        assert len(hits) == 5  # zero-score documents are ranked too, as in the notebook
    # The default ranks only documents holding a query token, ties by doc_id ascending.
    default = index.search(["zebra", "cat mat"], depth=5)
    assert len(default[0]) == 0
    assert default[1].doc_ids.tolist()[:4] == [16, 10, 12, 14]


def test_blank_query_gets_no_hits_as_in_the_notebook():
    index = BM25Index(DOCUMENTS)
    (hits,) = index.search(["   "], ranking="seed_compatible")
    assert len(hits) == 0 and hits.reason == EMPTY_QUERY


def test_argsort_helper_maps_positions_to_doc_ids():
    doc_ids, scores = argsort_reversed_top_k(np.array([0.0, 2.0, 2.0, 1.0]), np.array([7, 8, 9, 10]), 3)
    assert scores.tolist() == [2.0, 2.0, 1.0]
    assert doc_ids.tolist() == (np.array([7, 8, 9, 10])[np.argsort([0.0, 2.0, 2.0, 1.0])[::-1][:3]]).tolist()


def test_runner_names_its_own_family_and_records_the_ranking(tmp_path):
    config = config_from_settings({"retrievers": ["bm25", "bm25_seed_compatible"], "depth": 3})
    corpus = {"train": Corpus(list(range(len(DOCUMENTS))), DOCUMENTS)}
    queries = [Query("q1", "sae", "train", "cat mat", 0), Query("q2", "sae", "train", "zebra", 1)]
    found = run_retrievers(corpus, queries, config, provider=None, cache=None, lancedb_dir=tmp_path)
    outputs = {o.retriever: o for o in found}
    assert outputs["bm25_seed_compatible"].family == "bm25_seed_compatible"
    assert outputs["bm25_seed_compatible"].details["ranking"] == "seed_compatible"
    assert outputs["bm25"].details["ranking"] == "tie_rule"
    assert len(outputs["bm25"].hits[1]) == 0 and len(outputs["bm25_seed_compatible"].hits[1]) == 3
    assert "bm25_seed_compatible" not in config.bm25_points


def test_unknown_retriever_names_the_seed_compatible_one():
    with pytest.raises(UserError, match="bm25_seed_compatible"):
        config_from_settings({"retrievers": ["bm25_seed"]})
