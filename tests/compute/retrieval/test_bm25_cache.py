"""BM25 indexes kept on disk: a loaded index ranks exactly as the built one, and the key sees every input."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq
import pytest

from biaswh.compute.retrieval import bm25_cache
from biaswh.compute.retrieval.bm25 import BM25Index
from biaswh.compute.retrieval.bm25_cache import cached_bm25_index, index_key
from biaswh.compute.retrieval.bm25_statistics import BM25Parameters
from biaswh.compute.retrieval.tokenize import RegexTokenizer
from biaswh.ingest.dialect.text_cleanup import light_cleanup
from tests.conftest import shared_file

# Terms in more than half the documents get a negative idf, floored: weights need not all be positive.
DOCUMENTS = [
    "the cat sat on the mat",
    "the dog ate the cat's dinner",
    "Über café naïve façade — the end",
    "",
    "dogs and cats and the rest",
    "the the the",
]
QUERIES = ["the cat", "café über", "dogs dogs the", "nothing here", "", "the", "a c", "b b"]
# Terms in nearly every document: the mean idf is negative, so are floored weights.
COMMON_TERMS = ["a b", "a b", "a b c", "a b", "b a a"]


def _same_hits(left, right) -> bool:
    return all(
        np.array_equal(a.doc_ids, b.doc_ids) and np.array_equal(a.scores, b.scores) and a.reason == b.reason
        for a, b in zip(left, right, strict=True)
    )


def _cached(documents, doc_ids, tokenizer=None):
    tokenizer = tokenizer or RegexTokenizer()
    return cached_bm25_index(documents, doc_ids=doc_ids, tokenizer=tokenizer, parameters=BM25Parameters())


@pytest.mark.parametrize(("documents", "positive"), [(DOCUMENTS, True), (COMMON_TERMS, False)])
def test_a_loaded_index_ranks_as_the_built_one_bit_for_bit(documents, positive, tmp_path, monkeypatch):
    monkeypatch.setenv(bm25_cache.CACHE_VARIABLE, str(tmp_path / "bm25"))
    tokenizer = RegexTokenizer(r"\w+", lowercase=True)  # keeps the accented letters
    doc_ids = [10, 3, 7, 1, 42, 5][: len(documents)]
    built = BM25Index(documents, doc_ids=doc_ids, tokenizer=tokenizer)
    assert built.all_weights_positive is positive
    first = _cached(documents, doc_ids, tokenizer)  # builds and stores
    assert len(list((tmp_path / "bm25").glob("*.npz"))) == 1
    monkeypatch.setattr(BM25Index, "__init__", lambda *args, **kwargs: pytest.fail("built again, not loaded"))
    loaded = _cached(documents, doc_ids, tokenizer)
    assert loaded.vocabulary == built.vocabulary and loaded.describe() == built.describe()
    for index in (first, loaded):
        assert _same_hits(index.search(QUERIES, depth=6), built.search(QUERIES, depth=6))
        assert _same_hits(
            index.search(QUERIES, depth=6, ranking="seed_compatible"),
            built.search(QUERIES, depth=6, ranking="seed_compatible"),
        )


@pytest.mark.real_data
def test_a_loaded_squad_index_ranks_real_pair_queries_as_the_built_one(tmp_path, monkeypatch):
    monkeypatch.setenv(bm25_cache.CACHE_VARIABLE, str(tmp_path / "bm25"))
    contexts = pq.read_table(shared_file("squad-v1.1/train.parquet"), columns=["context"]).column("context")
    documents = list(dict.fromkeys(contexts.to_pylist()))[:4000]
    pairs = json.loads(shared_file("dialect-pairs/aave_poc_dataset_20250927-193921.json").read_text("utf-8"))
    queries = [light_cleanup(p[c]) for p in pairs[:100] for c in ("sae_query", "aave_query")]
    doc_ids = list(range(len(documents)))
    _cached(documents, doc_ids)
    built = BM25Index(documents, doc_ids=doc_ids)
    monkeypatch.setattr(BM25Index, "__init__", lambda *args, **kwargs: pytest.fail("built again, not loaded"))
    loaded = _cached(documents, doc_ids)
    assert _same_hits(loaded.search(queries, depth=100), built.search(queries, depth=100))


def test_the_key_changes_with_every_input_of_the_index():
    tokenizer, parameters = RegexTokenizer(), BM25Parameters()
    base = index_key([1, 2], ["a b", "c"], tokenizer, parameters)
    assert index_key([1, 2], ["a b", "c"], RegexTokenizer(), BM25Parameters()) == base
    changed = [
        index_key([1, 3], ["a b", "c"], tokenizer, parameters),
        index_key([1, 2], ["a b", "d"], tokenizer, parameters),
        index_key([1, 2], ["a", "b c"], tokenizer, parameters),  # the same characters, other documents
        index_key([1, 2], ["a b", "c"], RegexTokenizer(lowercase=False), parameters),
        index_key([1, 2], ["a b", "c"], RegexTokenizer(r"\w+"), parameters),
        index_key([1, 2], ["a b", "c"], tokenizer, BM25Parameters(k1=1.2)),
        index_key([1, 2], ["a b", "c"], tokenizer, BM25Parameters(b=0.5)),
        index_key([1, 2], ["a b", "c"], tokenizer, BM25Parameters(epsilon=0.1)),
    ]
    assert len({base, *changed}) == len(changed) + 1


def test_an_unreadable_file_is_rebuilt_and_replaced(tmp_path, monkeypatch):
    monkeypatch.setenv(bm25_cache.CACHE_VARIABLE, str(tmp_path))
    doc_ids = list(range(len(DOCUMENTS)))
    path = tmp_path / f"{index_key(doc_ids, DOCUMENTS, RegexTokenizer(), BM25Parameters())}.npz"
    path.write_bytes(b"half a file")
    index = _cached(DOCUMENTS, doc_ids)
    assert _same_hits(index.search(QUERIES), BM25Index(DOCUMENTS).search(QUERIES))
    with np.load(path, allow_pickle=False) as stored:
        assert "weights_data" in stored.files


def test_a_cache_that_cannot_be_written_only_costs_the_build(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(bm25_cache.CACHE_VARIABLE, str(blocker / "bm25"))
    index = _cached(DOCUMENTS, list(range(len(DOCUMENTS))))
    assert _same_hits(index.search(QUERIES), BM25Index(DOCUMENTS).search(QUERIES))


def test_the_least_recently_used_indexes_go_beyond_the_size_limit(tmp_path, monkeypatch):
    monkeypatch.setenv(bm25_cache.CACHE_VARIABLE, str(tmp_path))
    corpora = [[f"doc {i} term{j}" for j in range(50)] for i in range(3)]
    _cached(corpora[0], list(range(50)))
    size = next(tmp_path.glob("*.npz")).stat().st_size
    monkeypatch.setattr(bm25_cache, "MAX_BYTES", int(size * 2.5))
    first_key = index_key(list(range(50)), corpora[0], RegexTokenizer(), BM25Parameters())
    for corpus in corpora[1:]:
        _cached(corpus, list(range(50)))
    kept = {path.stem for path in tmp_path.glob("*.npz")}
    assert len(kept) == 2 and first_key not in kept


def test_a_cache_that_can_be_read_but_not_touched_is_still_read(tmp_path, monkeypatch):
    monkeypatch.setenv(bm25_cache.CACHE_VARIABLE, str(tmp_path))
    doc_ids = list(range(len(DOCUMENTS)))
    expected = _cached(DOCUMENTS, doc_ids).search(QUERIES)

    def refused(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(bm25_cache.os, "utime", refused)
    monkeypatch.setattr(BM25Index, "__init__", lambda *args, **kwargs: pytest.fail("built again, not loaded"))
    assert _same_hits(_cached(DOCUMENTS, doc_ids).search(QUERIES), expected)
