"""The numba kernel of BM25Index.search_tokens against rank_bm25 and against the NumPy path.

Both paths must rank the same documents with bit-identical scores, equal to rank_bm25's
``get_scores`` ranked under the tie rule (score descending, then doc_id ascending).
"""

from __future__ import annotations

import json
import os
import re
import sys

import numpy as np
import pyarrow.parquet as pq
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi

from biaswh.compute.retrieval import bm25_numba
from biaswh.compute.retrieval.bm25 import NO_KNOWN_TOKENS, NO_TOKENS, BM25Index
from biaswh.compute.retrieval.ranking import top_k
from biaswh.compute.retrieval.tokenize import RegexTokenizer
from biaswh.ingest.dialect.text_cleanup import light_cleanup
from tests.conftest import shared_file

pytest.importorskip("numba", reason="the kernel is the bench extra's (make test installs it)")


def test_small_batches_stay_on_numpy_unless_forced(monkeypatch):
    monkeypatch.delenv(bm25_numba.DISABLE_VARIABLE, raising=False)
    monkeypatch.delitem(sys.modules, "biaswh.compute.retrieval.bm25_kernel", raising=False)
    assert not bm25_numba.pays(400, 18_891)  # the dialect study's batch: numba's load would cost more
    assert bm25_numba.pays(87_599, 18_891)
    monkeypatch.setenv(bm25_numba.DISABLE_VARIABLE, "1")
    assert bm25_numba.pays(1, 10)
    monkeypatch.setenv(bm25_numba.DISABLE_VARIABLE, "0")
    assert not bm25_numba.pays(87_599, 18_891)


def _both_paths(index, queries, depth, monkeypatch):
    monkeypatch.setenv(bm25_numba.DISABLE_VARIABLE, "1")
    kernel = index.search_tokens(queries, depth=depth, threads=1)
    monkeypatch.setenv(bm25_numba.DISABLE_VARIABLE, "0")
    numpy_path = index.search_tokens(queries, depth=depth)
    monkeypatch.delenv(bm25_numba.DISABLE_VARIABLE)
    return kernel, numpy_path


def _oracle_top(oracle, tokens, doc_ids, depth):
    """rank_bm25's scores ranked under the tie rule; a hit holds at least one query token."""
    scores = oracle.get_scores(tokens)
    if min(oracle.idf.values()) > 0:  # then a document holds a query token exactly when it scores
        matched = scores > 0
    else:
        matched = np.array([any(t in frequencies for t in tokens) for frequencies in oracle.doc_freqs], dtype=bool)
    return top_k(np.where(matched, scores, -np.inf), doc_ids, depth)


def _assert_identical(found, want_ids, want_scores):
    assert found.doc_ids.tolist() == want_ids.tolist()
    assert found.scores.tolist() == want_scores.tolist()  # bit for bit, not approximately


@pytest.mark.real_data
def test_kernel_equals_rank_bm25_on_real_squad(monkeypatch):
    contexts = pq.read_table(shared_file("squad-v1.1/train.parquet"), columns=["context", "question"])
    documents = list(dict.fromkeys(" ".join(c.split()) for c in contexts.column("context").to_pylist()))[:2000]
    pairs = json.loads(shared_file("dialect-pairs/aave_poc_dataset_20250927-193921.json").read_text("utf-8"))
    questions = contexts.column("question").to_pylist()
    picked = np.random.default_rng(56).choice(len(questions), 100, replace=False)
    pair_texts = [light_cleanup(p[c]) for p in pairs[:100] for c in ("sae_query", "aave_query")]
    texts = pair_texts + [questions[i] for i in picked]
    tokenizer = RegexTokenizer()
    tokenized = [tokenizer(d) for d in documents]
    queries = [tokenizer(t) for t in texts]
    index, oracle = BM25Index(tokenized), BM25Okapi(tokenized)
    assert index.all_weights_positive  # the kernel's precondition, true of real text
    kernel, numpy_path = _both_paths(index, queries, 100, monkeypatch)
    doc_ids = np.arange(len(documents))
    for tokens, found, also in zip(queries, kernel, numpy_path):
        want_ids, want_scores = _oracle_top(oracle, tokens, doc_ids, 100)
        _assert_identical(found, want_ids, want_scores)
        _assert_identical(also, want_ids, want_scores)
    # Both of the kernel's ways were taken: most queries ranked on their candidates alone, some
    # (a dense-row term's bound reaching the kept hits) on every document.
    *_, scored_every_document = bm25_numba.rank_terms(index, *bm25_numba.known_term_ids(index, queries), 100)
    assert 0 < scored_every_document.sum() < len(queries) / 2


def test_documents_outside_the_candidates_enter_when_the_bound_allows(monkeypatch):
    # Short documents of a dense-row term only ("the") outscore the three long ones holding the
    # rare term: the candidates cannot bound them, so the kernel must score every document.
    documents = [["the"] * 3] * 20 + [["rare"] + [f"filler{d}"] * 30 for d in range(3)]
    index, oracle = BM25Index(documents), BM25Okapi(documents)
    assert bm25_numba._kernel_dense_slot(index)[index.vocabulary["the"]] >= 0
    queries = [["the", "rare"], ["rare", "the"], ["rare"]]
    terms, offsets = bm25_numba.known_term_ids(index, queries)
    *whole, scored_every_document = bm25_numba.rank_terms(index, terms, offsets, 3)
    assert scored_every_document.tolist() == [True, True, False]
    # The same fallback and hits when the candidates are taken tile by tile (of 4 and 7 documents).
    for tile in (4, 7):
        *tiled, scored_every_document = bm25_numba.rank_terms(index, terms, offsets, 3, tile=tile, candidate_cost=0)
        assert scored_every_document.tolist() == [True, True, False]
        assert [part.tolist() for part in tiled] == [part.tolist() for part in whole]
    assert whole[0][2].tolist() == [20, 21, 22] and whole[2].tolist() == [3, 3, 3]  # rare's three documents
    kernel, _ = _both_paths(index, queries, 3, monkeypatch)
    for tokens, found in zip(queries, kernel):
        _assert_identical(found, *_oracle_top(oracle, tokens, np.arange(len(documents)), 3))
    assert kernel[0].doc_ids.tolist() == [0, 1, 2]  # outside documents, tied, lowest doc_ids first


def test_kernel_dense_rows_are_codes_of_the_very_same_weights():
    # The kernel reads a common term's weights through a code per document: every document's
    # code must give its float64 weight bit for bit, code 0 exactly where the term is absent.
    documents = [["the"] * (d % 4 + 1) + [f"word{d % 5}"] * (d % 3) for d in range(30)] + [["zebra"]] * 5
    index = BM25Index(documents)
    slot, codes, values = bm25_numba._kernel_dense_rows(index)
    dense = [term for term in index.vocabulary if slot[index.vocabulary[term]] >= 0]
    assert "the" in dense and "zebra" not in dense
    for term in dense:
        row = slot[index.vocabulary[term]]
        weights = index.weights[index.vocabulary[term]].toarray().ravel()
        assert values[row][codes[row]].tolist() == weights.tolist()
        assert ((codes[row] == 0) == (weights == 0)).all() and values[row, 0] == 0.0
        assert len(np.unique(codes[row])) == len(np.unique(weights))  # one code per distinct weight


def test_a_tiles_marked_candidates_are_listed_in_document_order_and_the_marks_cleared():
    from biaswh.compute.retrieval.bm25_candidates import _list_marked

    # Bits at both ends of a word (63 is the int64's sign bit) and across words, after 2 earlier candidates.
    offsets = [0, 1, 62, 63, 64, 127, 130, 191]
    marks = np.zeros(3, dtype=np.int64)
    for offset in offsets:
        marks[offset >> 6] |= np.int64(1) << np.int64(offset & 63)
    candidates = np.full(20, -1, dtype=np.int64)
    assert _list_marked(marks, 1_000, candidates, 2) == 2 + len(offsets)
    assert candidates[2 : 2 + len(offsets)].tolist() == [1_000 + offset for offset in offsets]
    assert candidates[:2].tolist() == [-1, -1] and not marks.any()


def test_candidates_are_tried_first_only_when_they_pay():
    # A score row larger than a tile: a query's candidates go first only when its rare terms'
    # postings, times the cost, are at most the documents; the hits are the same either way.
    documents = [["the", f"word{d % 7}"] for d in range(40)] + [["rare", "the"]]
    index = BM25Index(documents)
    assert bm25_numba._kernel_dense_slot(index)[index.vocabulary["the"]] >= 0
    queries = [["rare", "the"], ["word3", "the"]]  # 1 and 6 rare postings among 41 documents; depth 1
    terms, offsets = bm25_numba.known_term_ids(index, queries)
    found = {}
    for cost in (0, 10, 41):
        *hits, scored_every_document = bm25_numba.rank_terms(index, terms, offsets, 1, tile=8, candidate_cost=cost)
        found[cost] = [h.tolist() for h in hits]
        assert scored_every_document.tolist() == [cost * 1 > 41, cost * 6 > 41]
    assert found[0] == found[10] == found[41]


WORDS = st.sampled_from(["the", "of", "garden", "food", "city", "library", "book", "river", "zebra"])
CORPUS_WORDS = WORDS.filter(lambda word: word != "zebra")  # zebra: a query term no document has


@settings(max_examples=150, deadline=None)
@given(
    documents=st.lists(
        st.lists(WORDS.filter(lambda w: w != "zebra"), min_size=1, max_size=12), min_size=1, max_size=40
    ),
    queries=st.lists(st.lists(WORDS, max_size=6), min_size=1, max_size=8),
    depth=st.integers(1, 60),
    shuffle_seed=st.integers(0, 2**16),
)
def test_kernel_equals_rank_bm25_on_small_corpora(documents, queries, depth, shuffle_seed):
    # Empty queries, unknown terms (zebra), repeated terms, depth beyond the corpus, floored idfs
    # (a word in most documents) and ties (repeated documents) all occur among the examples.
    doc_ids = np.random.default_rng(shuffle_seed).permutation(len(documents)) * 3 + 1
    index, oracle = BM25Index(documents, doc_ids=doc_ids), BM25Okapi(documents)
    with pytest.MonkeyPatch.context() as monkeypatch:
        kernel, numpy_path = _both_paths(index, queries, depth, monkeypatch)
    for tokens, found, also in zip(queries, kernel, numpy_path):
        assert (found.doc_ids.tolist(), found.scores.tolist(), found.reason) == (
            also.doc_ids.tolist(),
            also.scores.tolist(),
            also.reason,
        )
        if not tokens:
            assert found.reason == NO_TOKENS
            continue
        want_ids, want_scores = _oracle_top(oracle, tokens, doc_ids, depth)
        if len(want_ids) == 0:
            assert found.reason == NO_KNOWN_TOKENS
        else:
            np.testing.assert_array_equal(found.doc_ids, want_ids)
            np.testing.assert_array_equal(found.scores, want_scores)


def test_kernel_ranks_ties_by_doc_id_across_blocks(monkeypatch):
    # 100 identical documents among others, so ties span several blocks of the dense ranking.
    documents = [["red", "apple"]] * 100 + [["green", "pear", "red"]] * 60 + [["blue", "sky"]] * 40
    doc_ids = np.arange(len(documents))[::-1] * 2
    index = BM25Index(documents, doc_ids=doc_ids)
    assert bm25_numba._kernel_dense_slot(index)[index.vocabulary["red"]] >= 0  # a dense row, ranked by blocks
    kernel, numpy_path = _both_paths(index, [["red"], ["apple", "red"], ["sky"]], 30, monkeypatch)
    for found, also in zip(kernel, numpy_path):
        assert found.doc_ids.tolist() == also.doc_ids.tolist() and found.scores.tolist() == also.scores.tolist()
    assert kernel[0].doc_ids.tolist() == sorted(kernel[0].doc_ids.tolist())  # one score: lowest doc_ids first
    assert kernel[1].doc_ids.tolist() == sorted(doc_ids[:100].tolist())[:30]
    known = [[index.vocabulary[t] for t in q] for q in (["red"], ["apple", "red"], ["sky"])]
    for tile in (7, 64):  # several tiles, ties across their edges
        tiled = bm25_numba.rank_known_terms(index, known, 30, tile=tile, candidates=False)
        assert [(ids.tolist(), s.tolist()) for ids, s in tiled] == [
            (h.doc_ids.tolist(), h.scores.tolist()) for h in kernel
        ]


def test_kernel_threads_give_the_same_hits(monkeypatch):
    from biaswh.compute.retrieval.bm25_kernel import CHUNK

    # More queries than one chunk (the share a free thread takes), so both threads rank some.
    documents = [[f"w{(i * 7 + j) % 50}" for j in range(i % 9 + 1)] for i in range(500)]
    queries = [[f"w{(q * 3 + j) % 60}" for j in range(q % 5)] for q in range(3 * CHUNK)]
    index = BM25Index(documents)
    one = index.search_tokens(queries, depth=20, threads=1)
    two = index.search_tokens(queries, depth=20, threads=2)
    assert [(h.doc_ids.tolist(), h.scores.tolist(), h.reason) for h in one] == [
        (h.doc_ids.tolist(), h.scores.tolist(), h.reason) for h in two
    ]
    assert sum(len(h) for h in one) > 0


def test_two_threads_rank_two_parts_at_once_with_the_kernel_free_of_the_gil(monkeypatch):
    import threading

    from biaswh.compute.retrieval import bm25_kernel

    documents = [[f"w{(i * 7 + j) % 50}" for j in range(i % 9 + 1)] for i in range(300)]
    queries = [[f"w{(q * 3 + j) % 60}" for j in range(q % 5 + 1)] for q in range(4 * bm25_kernel.CHUNK)]
    index = BM25Index(documents)
    kernel, together, callers = bm25_kernel._rank_queries, threading.Barrier(2, timeout=30), []

    def spied(*args):
        callers.append(threading.get_ident())
        if len(callers) <= 2:
            together.wait()  # breaks (and fails the call) unless a second part runs meanwhile
        return kernel(*args)

    monkeypatch.setattr(bm25_kernel, "_rank_queries", spied)
    index.search_tokens(queries, depth=10, threads=2)
    assert len(callers) == 4 and len(set(callers)) == 2 and threading.get_ident() not in callers
    assert kernel.targetoptions["nogil"]
    parts = bm25_kernel._parts(10_000, 2)
    assert parts[0][0] == 0 and parts[-1][1] == 10_000 and len(parts) == 2 * bm25_kernel.PARTS_PER_THREAD
    assert all(left[1] == right[0] for left, right in zip(parts, parts[1:]))


@settings(max_examples=100, deadline=None)
@given(
    documents=st.lists(st.lists(CORPUS_WORDS, min_size=1, max_size=12), min_size=1, max_size=60),
    queries=st.lists(st.lists(WORDS, min_size=1, max_size=6), min_size=1, max_size=6),
    tile=st.sampled_from([1, 5, 16, 17, 40]),
    depth=st.integers(1, 30),
)
def test_kernel_tiles_give_the_numpy_paths_hits(documents, queries, tile, depth):
    # A query with a dense row is scored tile by tile: any tile gives the same hits and scores.
    # A word of its own per document keeps the mean idf, so the floor, positive.
    index = BM25Index([tokens + [f"only{number}"] for number, tokens in enumerate(documents)])
    assume(index.all_weights_positive)  # the kernel's precondition
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setenv(bm25_numba.DISABLE_VARIABLE, "0")
        want = index.search_tokens(queries, depth=depth)
    known = [[index.vocabulary[t] for t in q if t in index.vocabulary] for q in queries]
    # Candidates first always (cost 0), when they pay (the default) or never (every query in full).
    for candidates, cost in ((True, 0), (True, None), (False, None)):
        found = bm25_numba.rank_known_terms(index, known, depth, tile=tile, candidates=candidates, candidate_cost=cost)
        for (ids, scores), hits in zip(found, want):
            assert (ids.tolist(), scores.tolist()) == (hits.doc_ids.tolist(), hits.scores.tolist())


def test_a_studys_batch_is_ranked_on_the_threads_the_process_may_use(monkeypatch):
    from biaswh.warehouse.errors import UserError

    monkeypatch.delenv(bm25_numba.THREADS_VARIABLE, raising=False)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert bm25_numba.default_threads() == len(os.sched_getaffinity(0))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # as Ray sets it for a one-CPU worker
    assert bm25_numba.default_threads() == 1
    monkeypatch.setenv(bm25_numba.THREADS_VARIABLE, "3")
    assert bm25_numba.default_threads() == 3
    for bad in ("0", "two", "-1", "1.5"):
        monkeypatch.setenv(bm25_numba.THREADS_VARIABLE, bad)
        with pytest.raises(UserError, match=f"BIASWH_BM25_THREADS='{re.escape(bad)}'"):
            bm25_numba.default_threads()
    monkeypatch.setenv(bm25_numba.THREADS_VARIABLE, "2")
    seen = []
    ranked = lambda index, tokens, depth, threads: seen.append(threads) or []  # noqa: E731
    monkeypatch.setattr(bm25_numba, "rank_token_lists", ranked)
    monkeypatch.setattr(bm25_numba, "pays", lambda n_queries, n_docs: True)
    BM25Index([["a", "x"], ["b", "y"], ["c", "z"]]).search(["a b", "c"], depth=2)
    assert seen == [2]
