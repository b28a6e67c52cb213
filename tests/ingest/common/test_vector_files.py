"""Vector files that name their model: exported exactly, imported bit for bit, another model's skipped."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from biaswh.ingest.common.embedding_cache import EmbeddingCache, text_sha256
from biaswh.ingest.common.vector_files import (
    MODEL_ID_KEY,
    MODEL_SHA256_KEY,
    export_parquet,
    ignoring_precomputed,
    recorded_model,
    unit_rows_kept_exact,
)

TEXTS = ["the first text", "a second one", "and a third"]


def _encoder_rows(seed: int = 7) -> np.ndarray:
    """Unit rows as an encoder gives them: normalised in float32, norms a few ulps from 1."""
    rows = np.random.default_rng(seed).normal(size=(len(TEXTS), 384)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def _filled(folder, model_id: str = "model-a") -> EmbeddingCache:
    cache = EmbeddingCache(folder, model_id)
    cache.add([text_sha256(t) for t in TEXTS], _encoder_rows(), TEXTS, origin="computed")
    return cache


def test_an_exported_file_imports_into_an_empty_cache_bit_for_bit(tmp_path):
    source = _filled(tmp_path / "source")
    path = tmp_path / "vectors.parquet"
    assert export_parquet(source, path, model_sha256="f" * 64) == len(TEXTS)
    assert recorded_model(path).model_id == "model-a" and recorded_model(path).model_sha256 == "f" * 64
    written = pq.read_table(path)
    assert written.column("text_sha256").to_pylist() == sorted(text_sha256(t) for t in TEXTS)
    assert written.schema.field("vector").type.value_type == pa.float32()

    target = EmbeddingCache(tmp_path / "target", "model-a")
    result = target.import_parquet(path, model_sha256="f" * 64)
    assert result.skipped is None and (result.n_rows, result.n_new) == (3, 3)
    ours, _ = target.vectors_for(TEXTS, None)
    theirs, _ = source.vectors_for(TEXTS, None)
    # Equal bits, not close values: dividing an encoder's unit row by its norm moves some of its last bits.
    assert ours.tobytes() == theirs.tobytes()
    moved = theirs / np.linalg.norm(theirs, axis=1, keepdims=True)
    assert moved.tobytes() != theirs.tobytes()
    assert target.rows_with_text().column("text").to_pylist() != [None] * 3


def test_rows_not_of_unit_length_are_still_normalised():
    rows = np.asarray([[3.0, 4.0], [0.6, 0.8], [0.0, 0.0]], dtype=np.float32)
    unit = unit_rows_kept_exact(rows)
    np.testing.assert_allclose(unit[0], [0.6, 0.8], rtol=1e-6)
    assert unit[1].tobytes() == rows[1].tobytes() and not unit[2].any()


@pytest.mark.parametrize(
    ("model_id", "local_sha256", "reason"),
    [
        ("model-b", None, "computed with 'model-a', not 'model-b'"),
        ("model-a", "e" * 64, "another version of 'model-a' (model folder sha256 ffffffffffff, this machine's eeee"),
        ("model-a", lambda: "e" * 64, "another version of 'model-a'"),
    ],
)
def test_another_models_vectors_are_skipped_with_a_note(tmp_path, model_id, local_sha256, reason):
    path = tmp_path / "vectors.parquet"
    export_parquet(_filled(tmp_path / "source"), path, model_sha256="f" * 64)
    target = EmbeddingCache(tmp_path / "target", model_id)
    result = target.import_parquet(path, model_sha256=local_sha256)
    assert result.skipped and reason in result.skipped and result.n_new == 0
    assert target.known_shas() == set()
    assert "skipped" in result.describe() and "the texts are embedded here" in result.describe()


def test_a_file_naming_no_model_imports_as_before_and_the_hash_is_asked_only_when_recorded(tmp_path):
    rows = _encoder_rows() * 2  # not unit: normalised on import
    path = tmp_path / "plain.parquet"
    vectors = pa.FixedSizeListArray.from_arrays(pa.array(rows.ravel()), rows.shape[1])
    pq.write_table(pa.table({"text_sha256": [text_sha256(t) for t in TEXTS], "vector": vectors}), path)
    assert recorded_model(path).model_id is None

    def never() -> str:
        raise AssertionError("a file recording no model hash must not make the model folder be hashed")

    result = EmbeddingCache(tmp_path / "cache", "model-x").import_parquet(path, model_sha256=never)
    assert result.skipped is None and result.n_new == 3
    imported, _ = EmbeddingCache(tmp_path / "cache", "model-x").vectors_for(TEXTS, None)
    np.testing.assert_allclose(imported, _encoder_rows(), atol=1e-6)


def test_while_regenerating_every_import_is_skipped(tmp_path):
    path = tmp_path / "vectors.parquet"
    export_parquet(_filled(tmp_path / "source"), path)
    assert MODEL_SHA256_KEY not in pq.read_schema(path).metadata and MODEL_ID_KEY in pq.read_schema(path).metadata
    target = EmbeddingCache(tmp_path / "target", "model-a")
    with ignoring_precomputed():
        assert "afresh" in target.import_parquet(path).skipped
    assert target.import_parquet(path).n_new == 3
