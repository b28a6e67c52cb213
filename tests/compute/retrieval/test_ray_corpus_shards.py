"""Retrieval over corpus shards on Ray: the unsharded local rows and scores bit for bit, ties across shards included."""

from __future__ import annotations

import hashlib
import random

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from biaswh.compute.common.engine import ComputeSettings
from biaswh.compute.retrieval.ann import build_ann_tables
from biaswh.compute.retrieval.chunks import PrefetchedVectors, retrieve_chunk
from biaswh.compute.retrieval.config import config_from_settings
from biaswh.compute.retrieval.dense import DOC_TILE, DenseIndex
from biaswh.compute.retrieval.runner import Corpus, Query, run_retrievers
from biaswh.compute.retrieval.shards import (
    ann_hits,
    base_config,
    check_shardable,
    corpus_statistics,
    merged_outputs,
    shard_bm25_indexes,
    shard_bounds,
    shard_corpora,
    term_counts,
)
from biaswh.ingest.common.embedding_cache import EmbeddingCache
from biaswh.warehouse.errors import UserError

WORDS = "river bank money loan water fish boat interest rate flood account tree the of a".split()
N_DOCS = DOC_TILE + DOC_TILE // 2 + 77  # two shards: cut inside the first tile
TWIN_AT = (5, DOC_TILE + 100)  # one in each shard
TWIN = "heron marsh heron"  # words no other text has


class HashProvider:
    """Deterministic 8-dimensional vectors from each text's sha256 (no model loaded)."""

    model_id = "test-sha256-8"

    def embed(self, texts: list[str]) -> np.ndarray:
        digests = [np.frombuffer(hashlib.sha256(t.encode()).digest()[:8], np.uint8) for t in texts]
        return (np.asarray(digests, np.float32) - 127.5).reshape(len(texts), 8)


def _corpus_and_queries() -> tuple[dict, list[Query]]:
    rng = random.Random(11)
    texts = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12))) for _ in range(N_DOCS)]
    texts[TWIN_AT[0]] = texts[TWIN_AT[1]] = TWIN
    texts[40] = ""  # a document without tokens
    doc_ids = [3 * n + 10 for n in range(N_DOCS)]  # ids with gaps, ascending
    asked = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4))) for _ in range(30)]
    asked += [TWIN, "marsh flood", "", "!!!", "zebra unicorn"]  # twins; blank; no tokens; unknown tokens
    queries = [Query(f"q{n}", "sae", "train", text) for n, text in enumerate(asked)]
    return {"train": Corpus(doc_ids, texts)}, queries


RETRIEVAL = {
    "retrievers": ["bm25", "bm25@k1=0.9,b=0.4", "dense", "hybrid_union", "hybrid_minmax", "hybrid_rrf"],
    "depth": 12,
    "bm25": {"k1": 1.2, "b": 0.5, "epsilon": 0.4},
    "hybrid": {"sweep_weights": [0.3]},
}


def _rows(result_tables) -> list[dict]:
    return [row for table in result_tables for row in table.to_pylist()]


@pytest.fixture(scope="module")
def compared(ray_local, tmp_path_factory):
    """(local rows, sharded rows, local stats, sharded stats) over the same chunks."""
    from biaswh.compute.retrieval.ray_shards import RayShardedRetrieval

    folder = tmp_path_factory.mktemp("shards")
    corpora, queries = _corpus_and_queries()
    config = config_from_settings(RETRIEVAL)
    provider, cache = HashProvider(), EmbeddingCache(folder / "cache", HashProvider.model_id)
    chunks = [queries[:20], queries[20:]]
    local, local_stats, indexes = [], [], {}
    for chunk in chunks:
        result = retrieve_chunk(
            chunk,
            corpora,
            config,
            run_id="r",
            query_set="s",
            provider=provider,
            cache=cache,
            lancedb_dir=folder,
            bm25_indexes=indexes,
            add_results=local.append,
        )
        local_stats.append(result.stats)
    vectors = PrefetchedVectors(cache, provider, corpora["train"].texts + [q.text for q in queries if q.text.strip()])
    pool = RayShardedRetrieval(ComputeSettings("ray", corpus_shards=2), corpora, config, lancedb_dir=folder)
    try:
        results = list(pool.map(chunks, run_id="r", query_set="s", bm25_indexes={}, vectors=vectors))
    finally:
        pool.close()
    sharded = [pq.read_table(pa.BufferReader(encoded)) for result in results for encoded in result.parquet]
    return _rows(local), _rows(sharded), local_stats, [result.stats for result in results], indexes


@pytest.mark.ray
def test_sharded_rankings_and_scores_equal_the_unsharded_local_ones(compared):
    local, sharded, _, _, _ = compared
    assert len(local) > 1000 and sharded == local  # every row: retriever, query, rank, doc_id, score
    retrievers = {row["retriever"] for row in local}
    assert retrievers == {*RETRIEVAL["retrievers"], "hybrid_minmax@0.3"}


@pytest.mark.ray
def test_twins_in_different_shards_tie_and_the_lower_id_ranks_first(compared):
    local, sharded, _, _, _ = compared
    twin_id, other_id = (3 * position + 10 for position in TWIN_AT)
    for retriever in ("bm25", "bm25@k1=0.9,b=0.4", "dense"):
        hits = [row for row in sharded if row["retriever"] == retriever and row["query_id"] == "q30"]
        assert [(h["rank"], h["doc_id"]) for h in hits[:2]] == [(1, twin_id), (2, other_id)]
        assert hits[0]["score"] == hits[1]["score"]


@pytest.mark.ray
def test_queries_without_hits_keep_their_reasons_and_the_stats_match(compared):
    _, _, local_stats, sharded_stats, indexes = compared
    drop = {"latency_ms"}
    local = [{k: v for k, v in r.items() if k not in drop} for t in local_stats for r in t.to_pylist()]
    sharded = [{k: v for k, v in r.items() if k not in drop} for t in sharded_stats for r in t.to_pylist()]
    assert sharded == local
    reasons = {r["reason"] for r in sharded if r.get("reason")}
    assert {"empty query", "no tokens after tokenization", "no query token occurs in the corpus"} <= reasons
    # The recorded index describes the whole corpus on either path.
    assert {index.describe()["n_docs"] for index in indexes.values()} == {N_DOCS}


def test_shards_cut_evenly_carry_their_tiles_neighbours_and_too_many_are_refused():
    assert shard_bounds(N_DOCS, 2, split="train") == [(0, N_DOCS // 2), (N_DOCS // 2, N_DOCS)]
    assert shard_bounds(28, 3, split="train") == [(0, 9), (9, 18), (18, 28)]
    assert shard_bounds(3, 3, split="train") == [(0, 1), (1, 2), (2, 3)]
    corpora, _ = _corpus_and_queries()
    first, second = (shard["train"] for shard in shard_corpora(corpora, 2))
    texts, middle = corpora["train"].texts, N_DOCS // 2
    # Both shards' cut falls in the first tile: the first scores the tile's rest, the second its start.
    assert (first.tile_before, first.tile_after) == ((), tuple(texts[middle:DOC_TILE]))
    assert (second.tile_before, second.tile_after) == (tuple(texts[:middle]), ())
    assert first.doc_ids + second.doc_ids == corpora["train"].doc_ids
    refused = r"\[compute\] corpus_shards: 5 is more shards than split 'train' has documents \(4\)"
    with pytest.raises(UserError, match=refused):
        shard_bounds(4, 5, split="train")


def _hits(outputs) -> dict[str, list]:
    """Per retriever, each query's ids with its scores (a union hybrid: the ranks at which ids join) and reason."""
    return {
        o.retriever: [
            (h.doc_ids.tolist(), getattr(h, "scores", getattr(h, "ranks", None)).tolist(), h.reason) for h in o.hits
        ]
        for o in outputs
    }


def _merged_over_shards(corpora, queries, config, shards, vectors, ann=None) -> list:
    """The shards' outputs, each retrieved as a shard worker does (without Ray), merged and fused
    (``ann``: the chunk's hits through the whole corpus's ANN index, its queries and tables)."""
    parts = shard_corpora(corpora, shards)
    statistics = corpus_statistics([term_counts(part, config) for part in parts], config)
    outputs = [
        run_retrievers(
            part,
            queries,
            base_config(config),
            provider=None,
            cache=vectors,
            lancedb_dir=None,
            bm25_indexes=shard_bm25_indexes(part, shard_statistics, config),
        )
        for part, shard_statistics in zip(parts, statistics)
    ]
    return merged_outputs(outputs, config, ann=ann)


@pytest.mark.parametrize("n_docs", [28, 41, N_DOCS])
def test_shards_cut_inside_a_tile_score_and_rank_the_unsharded_bits(tmp_path, n_docs):
    """The demo's corpus (28 documents) and others cut into 2, 3 and 7 shards: every hit's id and
    score equal the unsharded index's, dense scores to the last bit (float32 tiles of other shapes
    would differ in it)."""
    corpora, queries = _corpus_and_queries()
    corpus = corpora["train"]
    corpora = {"train": Corpus(corpus.doc_ids[:n_docs], corpus.texts[:n_docs])}
    config = config_from_settings(RETRIEVAL)
    provider, cache = HashProvider(), EmbeddingCache(tmp_path / "cache", HashProvider.model_id)
    unsharded = run_retrievers(corpora, queries, config, provider=provider, cache=cache, lancedb_dir=tmp_path)
    vectors = PrefetchedVectors(cache, provider, corpora["train"].texts + [q.text for q in queries if q.text.strip()])
    expected = _hits(unsharded)
    assert sum(len(ids) for ids, _, _ in expected["dense"]) > 100
    for shards in (2, 3, 7):
        merged = _merged_over_shards(corpora, queries, config, shards, vectors)
        assert _hits(merged) == expected


def test_a_shards_dense_index_ranks_only_its_own_rows():
    vectors = np.eye(4, dtype=np.float32)
    index = DenseIndex([20, 21], vectors, own=(1, 3))
    hits = index.search(np.eye(4, dtype=np.float32), depth=4)
    assert [h.doc_ids.tolist() for h in hits] == [[20, 21], [20, 21], [21, 20], [20, 21]]
    assert [h.scores.tolist()[0] for h in hits] == [0.0, 1.0, 1.0, 0.0]
    with pytest.raises(ValueError, match="own rows"):
        DenseIndex([20], vectors, own=(1, 3))


def test_an_ann_index_searched_beside_the_shards_gives_the_unsharded_hits_fusion_and_recall(tmp_path):
    """An ANN index is not sharded: built once over the whole corpus and searched beside 2 and 3
    shards (as the first worker of a shard group searches it), its hits, the hybrids fused from
    them and its recall against the shards' merged exact lists equal the unsharded run's."""
    corpora, queries = _corpus_and_queries()
    config = config_from_settings(RETRIEVAL | {"ann": {"index": "ivf_flat", "partitions": 16, "probes": 1}})
    check_shardable(config, 2)  # an ANN index no longer keeps a study from sharding its corpus
    provider, cache = HashProvider(), EmbeddingCache(tmp_path / "cache", HashProvider.model_id)
    unsharded = run_retrievers(corpora, queries, config, provider=provider, cache=cache, lancedb_dir=tmp_path)
    vectors = PrefetchedVectors(cache, provider, corpora["train"].texts + [q.text for q in queries if q.text.strip()])
    tables = build_ann_tables(corpora, {"train"}, config, vectors, lancedb_dir=tmp_path)  # the one the local run built
    assert [table.n_probes for table in tables.values()] == [1] and len(list(tmp_path.glob("ann_ivf_flat_16_*"))) == 1
    expected = _hits(unsharded)
    (recall,) = {o.details["ann_recall"] for o in unsharded if o.retriever == "dense"}
    exact = run_retrievers(
        corpora, queries, config_from_settings(RETRIEVAL), provider=provider, cache=cache, lancedb_dir=tmp_path
    )
    assert 0 < recall < 1 and expected["dense"] != _hits(exact)["dense"]  # the index's own hits, not exact search's
    for shards in (2, 3):
        found = ann_hits(queries, vectors, tables, lancedb_dir=tmp_path, depth=config.depth)
        merged = _merged_over_shards(corpora, queries, config, shards, vectors, ann=(found, queries, tables))
        assert _hits(merged) == expected
        assert [o.details["ann_recall"] for o in merged if o.retriever == "dense"] == [recall]


@pytest.mark.ray
def test_the_retrieval_job_takes_the_sharded_pool_when_shards_are_asked_for(ray_local, warehouse_home):
    from biaswh.compute.retrieval.query_set_retrieval import compute_pool
    from biaswh.compute.retrieval.ray_shards import RayShardedRetrieval

    corpora, _ = _corpus_and_queries()
    config = config_from_settings(RETRIEVAL)
    with compute_pool(ComputeSettings("ray", corpus_shards=2), corpora, config) as pool:
        assert isinstance(pool, RayShardedRetrieval)
        assert [len(shard["train"].doc_ids) for shard in pool.shards] == [N_DOCS // 2, N_DOCS - N_DOCS // 2]
    with pytest.raises(UserError, match=r"corpus_shards: 3 needs as many Ray workers; the cluster offers 2"):
        with compute_pool(ComputeSettings("ray", corpus_shards=3), corpora, config):
            pass
