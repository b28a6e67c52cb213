"""The runner and its configuration, on a small corpus with a stand-in embedding model."""

from __future__ import annotations

import numpy as np
import pytest

from biaswh.compute.retrieval.config import config_from_settings
from biaswh.compute.retrieval.runner import Corpus, Query, run_retrievers
from biaswh.ingest.common.embedding_cache import EmbeddingCache
from biaswh.warehouse.errors import UserError


class LetterProvider:
    """A stand-in embedding model: letter counts, so similar spellings are similar vectors."""

    model_id = "letters"

    def embed(self, texts):
        return np.asarray(
            [[t.lower().count(c) + 0.01 for c in "abcdefghijklmnopqrstuvwxyz"] for t in texts], dtype=np.float32
        )


CORPUS = {
    "train": Corpus(
        [0, 1, 2, 3], ["community gardens grow food", "libraries lend books", "buses run on time", "gardens need water"]
    )
}
QUERIES = [
    Query("1", "sae", "train", "Who grows food in gardens?", 0),
    Query("1", "aae", "train", "   ", 0),
    Query("2", "sae", "train", "zzz qqq", 1),
]


@pytest.mark.parametrize("timing", ["batch", "per_query"])
def test_every_retriever_runs_and_empty_queries_get_reasons(tmp_path, timing):
    config = config_from_settings(
        {"depth": 3, "timing": timing, "hybrid": {"sweep_weights": [0.0, 1.0], "sweep_rrf_k": [1]}}
    )
    outputs = {
        o.retriever: o
        for o in run_retrievers(
            CORPUS,
            QUERIES,
            config,
            provider=LetterProvider(),
            cache=EmbeddingCache(tmp_path, "letters"),
            lancedb_dir=tmp_path,
        )
    }
    assert set(outputs) == {
        "bm25",
        "dense",
        "hybrid_union",
        "hybrid_minmax",
        "hybrid_rrf",
        "hybrid_minmax@0",
        "hybrid_minmax@1",
        "hybrid_rrf@1",
    }
    bm25, dense = outputs["bm25"], outputs["dense"]
    assert bm25.hits[0].doc_ids.tolist() == [0, 3]
    assert [h.reason for h in bm25.hits[1:]] == ["empty query", "no query token occurs in the corpus"]
    assert len(dense.hits[2]) == 3 and dense.hits[1].reason == "empty query"  # dense always finds neighbours
    for name, output in outputs.items():
        assert len(output.hits[1]) == 0 and output.hits[1].reason == "empty query", name
        assert all(latency is not None and latency >= 0 for latency in output.latency_ms[::2]), name
    # The min-max sweep's end points order each retriever's own documents as it does.
    for point, single in (("hybrid_minmax@1", bm25), ("hybrid_minmax@0", dense)):
        own = single.hits[0].doc_ids.tolist()
        assert [d for d in outputs[point].hits[0].doc_ids.tolist() if d in own] == own[: len(own)]
    assert outputs["hybrid_minmax@0"].details == {
        "fusion_weight_bm25": 0.0,
        "fusion_weight_dense": 1.0,
        "fusion_seconds": pytest.approx(0, abs=5),
    }


def test_bm25_alone_needs_no_embedding_provider(tmp_path):
    config = config_from_settings({"retrievers": ["bm25"]})
    (output,) = run_retrievers(CORPUS, QUERIES[:1], config, provider=None, cache=None, lancedb_dir=tmp_path)
    assert output.retriever == "bm25" and output.details["index"]["train"]["n_docs"] == 4


def test_named_bm25_settings_rank_as_that_setting_alone(tmp_path):
    config = config_from_settings(
        {"retrievers": ["bm25", "bm25@k1=0.9,b=0.4", "bm25@b=1"], "bm25": {"k1": 1.2, "b": 0.75, "epsilon": 0.25}}
    )
    assert config.needs == {"bm25"}
    assert config.bm25_points == {
        "bm25@k1=0.9,b=0.4": {"k1": 0.9, "b": 0.4, "epsilon": 0.25},
        "bm25@b=1": {"k1": 1.2, "b": 1.0, "epsilon": 0.25},
    }
    outputs = run_retrievers(CORPUS, QUERIES, config, provider=None, cache=None, lancedb_dir=tmp_path)
    assert [(o.retriever, o.family) for o in outputs] == [
        ("bm25", "bm25"),
        ("bm25@k1=0.9,b=0.4", "bm25"),
        ("bm25@b=1", "bm25"),
    ]
    for output, parameters in zip(outputs[1:], config.bm25_points.values()):
        alone = config_from_settings({"retrievers": ["bm25"], "bm25": parameters})
        (expected,) = run_retrievers(CORPUS, QUERIES, alone, provider=None, cache=None, lancedb_dir=tmp_path)
        assert output.details["index"]["train"]["k1"] == parameters["k1"]
        for got, want in zip(output.hits, expected.hits):
            assert got.doc_ids.tolist() == want.doc_ids.tolist() and got.reason == want.reason
            assert got.scores.tolist() == want.scores.tolist()
    assert outputs[0].hits[0].scores.tolist() != outputs[2].hits[0].scores.tolist()


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"retrievers": ["bm25", "splade"]}, "unknown splade"),
        ({"depth": 0}, "depth must be a positive integer"),
        ({"query_sets": ["everything"]}, "is not 'pairs'"),
        ({"hybrid": {"weights": [0, 0]}}, "not both 0"),
        ({"hybrid": {"sweep_weights": [1.5]}}, "between 0 and 1"),
        ({"bm25": {"k3": 1}}, "only k1, b and epsilon"),
        ({"tokenizer": {"pattern": "\\w+", "stem": True}}, "unknown key"),
        ({"timing": "sometimes"}, "timing must be"),
        ({"rerank": True}, "unknown key"),
        ({"retrievers": ["bm25@k3=1"]}, "unknown bm25@k3=1"),
        ({"retrievers": ["bm25@k1=1.2.3"]}, "is not a number"),
        ({"retrievers": ["bm25@k1=1,k1=2"]}, "names a setting twice"),
        ({"retrievers": ["bm25@b=0.5", "bm25@b=0.5"]}, "listed twice"),
    ],
)
def test_bad_settings_are_named(settings, message):
    with pytest.raises(UserError, match=message):
        config_from_settings(settings)


def test_defaults_and_relative_paths():
    config = config_from_settings(
        {"embedding": {"provider": "local", "precomputed": "vectors.parquet"}}, resolve=lambda p: f"/studies/{p}"
    )
    assert config.retrievers == ("bm25", "dense", "hybrid_union", "hybrid_minmax", "hybrid_rrf")
    assert (config.depth, config.weights, config.rrf_k, config.ann_index) == (100, (0.5, 0.5), 60.0, "none")
    assert config.precomputed == ("/studies/vectors.parquet",)
    assert config.bm25 == {"k1": 1.5, "b": 0.75, "epsilon": 0.25}


def test_ann_option_reports_recall_in_the_run_details(tmp_path):
    rng = np.random.default_rng(7)
    words = ["garden", "library", "bus", "water", "food", "book", "city", "park", "school", "music"]
    # A distinct letter-count vector per document (z and q counts encode i): no ties at the
    # depth boundary, so "exact" has one answer and the ANN recall is exactly 1.
    texts = [" ".join(rng.choice(words, size=6)) + " " + "z" * (i % 20) + "q" * (i // 20) for i in range(300)]
    corpus = {"train": Corpus(list(range(300)), texts)}
    queries = [Query(str(i), "sae", "train", " ".join(rng.choice(words, size=3))) for i in range(10)]
    config = config_from_settings(
        {"retrievers": ["dense"], "depth": 10, "ann": {"index": "ivf_flat", "partitions": 4, "probes": 4}}
    )
    (dense,) = run_retrievers(
        corpus,
        queries,
        config,
        provider=LetterProvider(),
        cache=EmbeddingCache(tmp_path, "letters"),
        lancedb_dir=tmp_path,
    )
    assert dense.details["ann_recall"] == pytest.approx(1.0)  # every partition probed: exact
    assert all(len(h) == 10 for h in dense.hits)


def test_dropping_documents_is_seeded_and_keeps_order():
    from biaswh.compute.retrieval.steps import drop_documents

    corpora = {"train": Corpus(list(range(100)), [f"doc {i}" for i in range(100)])}
    once = drop_documents(corpora, 0.1, seed=11)["train"]
    again = drop_documents(corpora, 0.1, seed=11)["train"]
    other = drop_documents(corpora, 0.1, seed=12)["train"]
    assert len(once.doc_ids) == 90 and once.doc_ids == again.doc_ids and once.doc_ids != other.doc_ids
    assert once.doc_ids == sorted(once.doc_ids) and once.texts == [f"doc {i}" for i in once.doc_ids]
    assert drop_documents(corpora, 0.0, seed=11) is corpora
    with pytest.raises(UserError, match="drop_documents_fraction"):
        config_from_settings({"drop_documents_fraction": 1.0})


@pytest.mark.parametrize("timing", ["batch", "per_query"])
def test_a_dense_query_set_fans_out_on_ray_in_chunks_of_whole_query_tiles(timing):
    """Locally a dense query set is one chunk; on a pool of 2 it is cut into chunks whose non-blank
    queries of each split are whole tiles of 256 (the shapes exact search multiplies), unless each
    query is searched alone; BM25 alone keeps its fixed chunks."""
    from types import SimpleNamespace

    from biaswh.compute.retrieval.dense import QUERY_TILE
    from biaswh.compute.retrieval.query_set_retrieval import RAY_QUERY_CHUNK, query_chunks

    queries = [Query(f"q{n}", "sae", "train", "" if n % 7 == 0 else f"query {n}") for n in range(1_300)]
    dense = config_from_settings({"retrievers": ["bm25", "dense", "hybrid_rrf"], "timing": timing})
    pool = SimpleNamespace(n_parallel=2)
    assert query_chunks(queries, dense, None) == [queries]
    chunks = query_chunks(queries, dense, pool)
    assert [q for chunk in chunks for q in chunk] == queries and len(chunks) >= 2
    asked = [sum(bool(q.text) for q in chunk) for chunk in chunks]
    if timing == "batch":
        assert all(n % QUERY_TILE == 0 for n in asked[:-1]) and asked[0] == 3 * QUERY_TILE
    else:
        assert [len(chunk) for chunk in chunks] == [650, 650]
    bm25 = config_from_settings({"retrievers": ["bm25"], "timing": timing})
    assert query_chunks(queries, bm25, pool) == [queries[:RAY_QUERY_CHUNK]] and len(query_chunks([], dense, pool)) == 0
