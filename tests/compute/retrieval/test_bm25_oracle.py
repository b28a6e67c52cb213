"""BM25 against rank_bm25 itself as the oracle, on real SQuAD text and on edge cases."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq
import pytest
from rank_bm25 import BM25Okapi

from biaswh.compute.retrieval.bm25 import NO_KNOWN_TOKENS, NO_TOKENS, BM25Index
from biaswh.compute.retrieval.bm25_statistics import BM25Parameters
from biaswh.compute.retrieval.ranking import EMPTY_QUERY, top_k
from biaswh.compute.retrieval.tokenize import RegexTokenizer
from biaswh.ingest.dialect.text_cleanup import light_cleanup
from biaswh.warehouse.errors import UserError
from tests.conftest import shared_file

STOPWORD_QUERIES = ["the of is the", "the the the", "of", "is the of a in to", "what is the name of the"]


@pytest.fixture(scope="module")
def squad_oracle():
    """3,000 real SQuAD train contexts, the real pair queries, our index and rank_bm25's."""
    contexts = pq.read_table(shared_file("squad-v1.1/train.parquet"), columns=["context"]).column("context")
    documents = list(dict.fromkeys(" ".join(c.split()) for c in contexts.to_pylist()))[:3000]
    pairs = json.loads(shared_file("dialect-pairs/aave_poc_dataset_20250927-193921.json").read_text("utf-8"))
    queries = [light_cleanup(p[c]) for p in pairs[:100] for c in ("sae_query", "aave_query")] + STOPWORD_QUERIES
    tokenizer = RegexTokenizer()
    tokenized = [tokenizer(d) for d in documents]
    return BM25Index(tokenized), BM25Okapi(tokenized), queries, tokenizer


@pytest.mark.real_data
def test_scores_equal_rank_bm25_on_real_squad_queries(squad_oracle):
    index, oracle, queries, tokenizer = squad_oracle
    ours, _ = index.score([tokenizer(q) for q in queries])
    expected = np.vstack([oracle.get_scores(tokenizer(q)) for q in queries])
    assert np.abs(ours - expected).max() <= 1e-9
    # Stopword-heavy queries hit the idf floor (terms in over half the documents).
    assert any(oracle.idf[t] == pytest.approx(0.25 * oracle.average_idf) for t in ("the", "of"))
    assert index.average_idf == pytest.approx(oracle.average_idf, abs=1e-12)


@pytest.mark.real_data
def test_top_k_order_matches_rank_bm25(squad_oracle):
    index, oracle, queries, tokenizer = squad_oracle
    hits = index.search(queries, depth=100)
    doc_ids = np.arange(index.n_docs)
    for query, found in zip(queries, hits):
        tokens = tokenizer(query)
        expected = oracle.get_scores(tokens)
        matched = np.array([any(t in doc for t in tokens) for doc in oracle.doc_freqs])
        want_ids, want_scores = top_k(np.where(matched, expected, -np.inf), doc_ids, 100)
        assert found.doc_ids.tolist() == want_ids.tolist(), query
        np.testing.assert_allclose(found.scores, want_scores, rtol=0, atol=1e-9)
        # Where the top 10 has no ties, the original argsort loop gives the same order.
        top = np.sort(expected)[::-1][:11]
        if len(set(top.tolist())) == 11:
            assert found.doc_ids[:10].tolist() == np.argsort(expected)[::-1][:10].tolist()


def test_repeated_query_token_counts_again():
    documents = [["garden", "food"], ["garden", "garden", "city"], ["city", "library"], ["book"]]
    index, oracle = BM25Index(documents), BM25Okapi(documents)
    scores, _ = index.score([["garden"], ["garden", "garden"], ["garden", "city", "garden"]])
    for row, query in enumerate([["garden"], ["garden", "garden"], ["garden", "city", "garden"]]):
        assert scores[row].tolist() == oracle.get_scores(query).tolist()
    np.testing.assert_allclose(scores[1], 2 * scores[0])


def test_ties_break_by_lower_doc_id():
    index = BM25Index(["red apple", "green pear", "red apple", "red apple"], doc_ids=[7, 3, 5, 9])
    (hits,) = index.search(["apple"], depth=2)
    assert hits.doc_ids.tolist() == [5, 7]
    assert hits.scores[0] == hits.scores[1]


def test_queries_without_usable_tokens_get_no_hits_and_a_reason():
    index = BM25Index(["community gardens grow food", "libraries lend books"])
    empty, punctuation, unknown, fine = index.search(["   ", "?!", "zebra", "food"], depth=10)
    assert (len(empty), empty.reason) == (0, EMPTY_QUERY)
    assert (len(punctuation), punctuation.reason) == (0, NO_TOKENS)
    assert (len(unknown), unknown.reason) == (0, NO_KNOWN_TOKENS)
    assert fine.doc_ids.tolist() == [0] and fine.reason is None


def test_documents_without_a_query_token_are_not_hits():
    (hits,) = BM25Index(["a cat", "a dog", "the bird"]).search(["cat"], depth=10)
    assert hits.doc_ids.tolist() == [0]


def test_empty_corpus_is_refused():
    with pytest.raises(UserError, match="no documents"):
        BM25Index([])
    with pytest.raises(UserError, match="no tokens"):
        BM25Index(["?!", "..."])


def test_tokenizer_is_configurable_and_recorded():
    tokenizer = RegexTokenizer(pattern=r"\w+", lowercase=False)
    index = BM25Index(["Café au lait", "café noir"], tokenizer=tokenizer, parameters=BM25Parameters(k1=1.2, b=0.5))
    assert tokenizer("Café au lait") == ["Café", "au", "lait"]
    assert index.describe()["tokenizer"] == {"kind": "regex", "pattern": r"\w+", "lowercase": False}
    assert index.describe()["k1"] == 1.2
    oracle = BM25Okapi([["Café", "au", "lait"], ["café", "noir"]], k1=1.2, b=0.5)
    assert index.score([["Café"]])[0][0].tolist() == oracle.get_scores(["Café"]).tolist()
    with pytest.raises(UserError, match="not a valid regular expression"):
        RegexTokenizer(pattern="[")
