"""Embedding on Ray actors: the local vectors bit for bit, only uncached texts sent, the driver writing the cache."""

from __future__ import annotations

import random

import numpy as np
import pytest

from biaswh.compute.common.engine import ComputeSettings
from biaswh.compute.retrieval.embeddings import LocalProvider
from biaswh.ingest.common.embedding_batches import forward_batches, place_rows
from biaswh.ingest.common.embedding_cache import EmbeddingCache

WORDS = "the river bank lent money at a low rate of interest while fish swam under the old boat".split()


def _texts(n: int, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 30))) for _ in range(n)]


def test_forward_batches_are_longest_first_with_ties_in_input_order():
    texts = ["aa", "b", "cccc", "dd", "e", "ffff"]
    assert forward_batches(texts, 4) == [[2, 5, 0, 3], [1, 4]]
    rows = [np.array([[2.0], [5.0], [0.0], [3.0]]), np.array([[1.0], [4.0]])]
    assert place_rows(len(texts), forward_batches(texts, 4), rows).ravel().tolist() == [0, 1, 2, 3, 4, 5]
    assert place_rows(0, [], []).shape == (0, 0)


@pytest.fixture
def embedder(ray_local, monkeypatch):
    """A study's default local provider on Ray, one forward batch per task (so a few texts reach both actors).

    Its actors stay up for the session, as they do for every later job of a process: the Ray
    parity test's study runs use the same pool (one model load per actor per session).
    """
    import biaswh.compute.retrieval.ray_embeddings as ray_embeddings

    monkeypatch.setattr(ray_embeddings, "BATCHES_PER_TASK", 1)
    return ray_embeddings.RayEmbedder(LocalProvider(), ComputeSettings(engine="ray", workers=2))


@pytest.mark.ray
def test_ray_vectors_equal_the_local_providers_bit_for_bit(embedder):
    texts = _texts(150)  # three forward batches of 64, one task each: spread over both actors
    local = LocalProvider().embed(texts)
    on_ray = embedder.embed(texts)
    assert on_ray.shape == (150, 384) and on_ray.dtype == np.float32
    assert np.array_equal(on_ray, local)
    assert embedder.model_id == "all-MiniLM-L6-v2" and embedder.describe() == LocalProvider().describe()


@pytest.mark.ray
def test_only_uncached_texts_go_to_the_workers_and_the_driver_writes_the_cache(embedder, tmp_path):
    texts = _texts(40, seed=5)
    cache = EmbeddingCache(tmp_path / "cache", embedder.model_id)
    local = LocalProvider()
    cache.vectors_for(texts[:25], local)  # 25 texts cached by the local engine first
    before = embedder.n_embedded
    vectors, n_embedded = cache.vectors_for(texts, embedder)
    unique_missing = len(set(texts[25:]) - set(texts[:25]))
    assert n_embedded == unique_missing == embedder.n_embedded - before and n_embedded > 0
    assert len(cache.known()) == len(set(texts))
    fresh = EmbeddingCache(tmp_path / "local-only", embedder.model_id)  # the same two steps, all local
    fresh.vectors_for(texts[:25], local)
    expected, _ = fresh.vectors_for(texts, local)
    assert np.array_equal(vectors, expected)


@pytest.mark.ray
def test_a_local_ray_instances_workers_run_at_the_drivers_priority(ray_local):
    """Not at Ray's default niceness of 15, which starves them beside any busy process while the driver waits."""
    import os

    def niceness() -> int:
        return os.nice(0)

    assert ray_local.get(ray_local.remote(num_cpus=0)(niceness).remote()) == os.nice(0)


@pytest.mark.ray
def test_weat_template_sentences_encoded_on_ray_equal_the_local_ones(ray_local, tmp_path, monkeypatch):
    """A WEAT sentence encoder's words in templates, encoded on Ray actors (as a study run on the Ray
    engine encodes them): the local word vectors bit for bit, every uncached sentence sent to Ray."""
    import biaswh.compute.retrieval.ray_embeddings as ray_embeddings
    from biaswh.ingest.weat.sentence_vectors import LOCAL_MINILM, encode_words, resolve_model_path, sentence_encoding_on

    monkeypatch.setattr(ray_embeddings, "BATCHES_PER_TASK", 1)  # batches of 8: tasks on both actors
    words, templates = sorted(set(WORDS)) + ["Ms. Smith", "engineer"], ("This is {word}.", "{word} is here.")
    options = {"model_path": resolve_model_path(LOCAL_MINILM), "templates": templates, "batch_size": 8}
    monkeypatch.setenv("BIASWH_EMBEDDING_CACHE", str(tmp_path / "local"))
    local = encode_words(words, **options)
    monkeypatch.setenv("BIASWH_EMBEDDING_CACHE", str(tmp_path / "ray"))
    wrap, made = ray_embeddings.sentence_encoder_pool(ComputeSettings("ray", workers=2)), []
    with sentence_encoding_on(lambda encoder: made.append(wrap(encoder)) or made[-1]):
        on_ray = encode_words(words, **options)
    assert isinstance(made[0], ray_embeddings.RayEmbedder) and made[0].n_embedded == 2 * len(words)
    assert on_ray.words == local.words and on_ray.vectors.shape == (len(words), 384)
    assert np.array_equal(on_ray.vectors, local.vectors)
    assert ray_embeddings.sentence_encoder_pool(ComputeSettings("local")) is None
