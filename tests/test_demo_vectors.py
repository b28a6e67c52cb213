"""The demo ships its texts' vectors: a cold demo run never loads the encoder, a changed text is embedded.

Every demo warehouse of the session is built from an empty embedding cache with encoder loads
refused (tests/encoder_guard.py, in tests/prebuilt.py and tests/conftest.py); these tests check
what those runs left, and that a text the shipped files lack is still embedded by the real model.
"""

from __future__ import annotations

import contextlib
import io
import re
import shutil

import numpy as np
import pyarrow.parquet as pq
import pytest

from biaswh.common.audit_data import DEMO_RETRIEVAL_VECTORS, DEMO_SENTENCE_VECTORS
from biaswh.compute.retrieval.embeddings import LocalProvider
from biaswh.ingest.common.embedding_cache import CACHE_VARIABLE, EmbeddingCache, text_sha256
from biaswh.ingest.common.vector_files import recorded_model
from biaswh.ingest.weat.sentence_vectors import LOCAL_MINILM, SentenceEncoder, encode_words, resolve_model_path
from biaswh.warehouse.settings.home import HOME_VARIABLE
from tests.conftest import DEMO_DATA, DEMO_STUDY
from tests.encoder_guard import EncoderLoaded, refusing_encoder_loads

MODEL_FOLDER = resolve_model_path(LOCAL_MINILM)
SENTENCE_MODEL_ID = SentenceEncoder(model=MODEL_FOLDER, batch_size=64).model_id
SHIPPED = ((DEMO_RETRIEVAL_VECTORS, "all-MiniLM-L6-v2"), (DEMO_SENTENCE_VECTORS, SENTENCE_MODEL_ID))


def _rows(table) -> dict[str, bytes]:
    vectors = np.asarray(table.column("vector").combine_chunks().flatten().to_numpy(), dtype=np.float32)
    vectors = vectors.reshape(table.num_rows, -1)
    return dict(zip(table.column("text_sha256").to_pylist(), (row.tobytes() for row in vectors)))


@pytest.mark.parametrize(("path", "model_id"), SHIPPED)
def test_the_shipped_vectors_are_this_models_and_say_so(path, model_id):
    recorded = recorded_model(path)
    assert recorded.model_id == model_id
    assert recorded.model_sha256 == LocalProvider().model_sha256() and recorded.model_sha256 in SENTENCE_MODEL_ID
    table = pq.read_table(path)
    assert table.column("text_sha256").to_pylist() == [text_sha256(t) for t in table.column("text").to_pylist()]
    assert str(table.schema.field("vector").type.value_type) == "float"
    readme = (DEMO_DATA / "embeddings" / "README.md").read_text(encoding="utf-8")
    assert path.name in readme and "python -m biaswh.common.demo_vectors" in readme
    assert recorded.model_sha256 in readme


def test_the_cold_demo_run_imported_every_vector_and_embedded_none(demo_warehouse):
    # The run's cache was empty and the encoder refused (tests/encoder_guard.py): its rows are the
    # shipped file's, bit for bit, every one imported.
    assert "to embed" not in demo_warehouse.stdout
    assert "embeddings retrieval-all-MiniLM-L6-v2.parquet: " in demo_warehouse.stdout
    cache = EmbeddingCache(demo_warehouse.embedding_cache, "all-MiniLM-L6-v2")
    shipped = _rows(pq.read_table(DEMO_RETRIEVAL_VECTORS))
    assert _rows(cache.known()) == shipped
    origins = set(cache._read("origin").column("origin").to_pylist())
    assert len(origins) == 1 and origins.pop().startswith("import:retrieval-all-MiniLM-L6-v2.parquet:")


def test_the_other_demo_studies_and_the_audit_ran_on_the_shipped_vectors(demo_site, audit_site):
    # Both built from an empty cache of their own beside the warehouse, the encoder refused.
    for site in (demo_site, audit_site):
        folder = site.parent.parent / "embeddings"
        for path, model_id in (
            (DEMO_RETRIEVAL_VECTORS, "all-MiniLM-L6-v2"),
            (DEMO_SENTENCE_VECTORS, SENTENCE_MODEL_ID),
        ):
            cached = _rows(EmbeddingCache(folder, model_id).known())
            shipped = _rows(pq.read_table(path))
            assert cached and cached.items() <= shipped.items(), (site, path.name)


def test_a_changed_demo_text_is_embedded_and_only_it(tmp_path, monkeypatch, capsys):
    from biaswh.pipeline import run_study

    study = tmp_path / "studies"
    shutil.copytree(DEMO_DATA, study / "demo_data")
    # The demo study as it is, but its dense retriever alone and no analysis (the run is about the vectors).
    config = DEMO_STUDY.read_text(encoding="utf-8").replace('analysis = ["dialect_tests"]', "analysis = []")
    config = re.sub(r"retrievers = \[[^\]]*\]", 'retrievers = ["dense"]', config)
    (study / "demo.toml").write_text(config, encoding="utf-8")
    pairs = study / "demo_data" / "dialect_pairs_demo.csv"
    lines = pairs.read_text(encoding="utf-8").splitlines(keepends=True)
    header, first = lines[0].split(","), lines[1].split(",")
    column = header.index("sae_query")
    first[column] = first[column].rstrip("?") + " today?"
    pairs.write_text(lines[0] + ",".join(first) + "".join(lines[2:]), encoding="utf-8")
    monkeypatch.setenv(HOME_VARIABLE, str(tmp_path / "warehouse"))
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / "embeddings"))
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        run_study(str(study / "demo.toml"), build_site=False)  # the embedding cache is read, not a page
    assert "  1 text(s) to embed with all-MiniLM-L6-v2" in printed.getvalue()
    cache = EmbeddingCache(tmp_path / "embeddings", "all-MiniLM-L6-v2")
    computed = cache._read("text, origin", "origin = 'computed'").column("text").to_pylist()
    assert len(computed) == 1 and computed[0].endswith(" today?")


def test_a_sentence_the_shipped_file_lacks_loads_the_encoder_and_the_rest_do_not(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / "embeddings"))
    shipped = pq.read_table(DEMO_SENTENCE_VECTORS).column("text").to_pylist()
    words = [text.removeprefix("This is ").removesuffix(".") for text in shipped if text.startswith("This is ")][:5]
    templates = ("This is {word}.", "That is {word}.", "{word} is here.")
    with refusing_encoder_loads():
        known = encode_words(words, model_path=MODEL_FOLDER, templates=templates, precomputed=(DEMO_SENTENCE_VECTORS,))
        with pytest.raises(EncoderLoaded):
            encode_words([*words, "zeppelin"], model_path=MODEL_FOLDER, templates=templates)
    again = encode_words([*words, "zeppelin"], model_path=MODEL_FOLDER, templates=templates)
    assert again.vectors[:5].tobytes() == known.vectors.tobytes()
    computed = EmbeddingCache(tmp_path / "embeddings", SENTENCE_MODEL_ID)._read("text", "origin = 'computed'")
    assert sorted(computed.column("text").to_pylist()) == sorted(t.format(word="zeppelin") for t in templates)
