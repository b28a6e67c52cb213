"""The LanceDB embedding cache: reruns embed nothing new; precomputed Parquet imports."""

from __future__ import annotations

import shutil
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from biaswh.compute.retrieval.dense import DenseIndex
from biaswh.compute.retrieval.embeddings import LocalProvider
from biaswh.ingest.common.embedding_cache import EmbeddingCache, text_sha256
from biaswh.ingest.dialect.text_cleanup import light_cleanup
from biaswh.warehouse.errors import InputError, UserError
from biaswh.warehouse.settings.home import REPOSITORY_ROOT
from tests.conftest import shared_file


class CountingProvider:
    """A stand-in for an embedding model that records every text it is asked to embed."""

    model_id = "counting-test-model"

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed(self, texts):
        self.calls.append(list(texts))
        return np.asarray([[len(t), t.count("a") + 1, 1.0] for t in texts], dtype=np.float32)


def test_second_run_embeds_nothing_new(tmp_path):
    provider = CountingProvider()
    cache = EmbeddingCache(tmp_path, provider.model_id)
    first, n_first = cache.vectors_for(["alpha", "beta", "alpha"], provider)
    assert n_first == 2 and sorted(provider.calls[0]) == ["alpha", "beta"]
    again, n_again = EmbeddingCache(tmp_path, provider.model_id).vectors_for(["beta", "alpha"], provider)
    assert n_again == 0 and len(provider.calls) == 1
    np.testing.assert_array_equal(again, first[[1, 0]])
    _, n_new = cache.vectors_for(["alpha", "gamma"], provider)
    assert n_new == 1 and provider.calls[-1] == ["gamma"]
    other_model = EmbeddingCache(tmp_path, "another-model")
    with pytest.raises(UserError, match="no cached"):
        other_model.vectors_for(["alpha"], None)
    with pytest.raises(UserError, match="3-d vectors in the cache"):
        cache.add([text_sha256("delta")], np.ones((1, 5)), ["delta"], origin="test")


def test_the_cached_hashes_are_read_without_the_vectors(tmp_path):
    # known_shas reads the hash column only (the machine's cache grows with every corpus) and
    # lists exactly what known() holds, across added batches.
    provider = CountingProvider()
    cache = EmbeddingCache(tmp_path, provider.model_id)
    assert cache.known_shas() == set()
    cache.vectors_for(["alpha", "beta"], provider)
    cache.vectors_for(["gamma", "alpha"], provider)
    expected = {text_sha256(t) for t in ("alpha", "beta", "gamma")}
    assert cache.known_shas() == expected == set(cache.known().column("text_sha256").to_pylist())


def test_a_cached_read_sees_another_writers_rows_and_never_imports_lancedb(tmp_path):
    # Reads go through DuckDB's lance extension: a process whose texts are all cached reads the
    # vectors another process wrote with LanceDB, bit for bit, without importing LanceDB at all.
    provider = CountingProvider()
    expected, _ = EmbeddingCache(tmp_path, provider.model_id).vectors_for(["alpha", "beta", "gamma"], provider)
    np.save(tmp_path / "expected.npy", expected)
    script = f"""
import sys
import numpy as np
from biaswh.ingest.common.embedding_cache import EmbeddingCache
cache = EmbeddingCache({str(tmp_path)!r}, {provider.model_id!r})
vectors, n_embedded = cache.vectors_for(["gamma", "alpha", "beta", "alpha"], None)
assert n_embedded == 0 and cache.dimension() == 3 and len(cache.known_shas()) == 3
assert np.array_equal(vectors, np.load({str(tmp_path / "expected.npy")!r})[[2, 0, 1, 0]])
print("lancedb" in sys.modules)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPOSITORY_ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_a_hash_stored_twice_still_gives_one_vector_per_text(tmp_path):
    # Two processes adding the same text at once may both store it; each text still gets its vector.
    provider = CountingProvider()
    cache = EmbeddingCache(tmp_path, provider.model_id)
    expected, _ = cache.vectors_for(["alpha", "beta"], provider)
    table = cache._db.open_table(cache.table_name)
    table.add(table.to_arrow().filter(pc.equal(table.to_arrow().column("text_sha256"), text_sha256("alpha"))))
    assert table.count_rows() == 3
    again, n_embedded = cache.vectors_for(["beta", "alpha"], None)
    assert n_embedded == 0 and again.shape == (2, 3)
    np.testing.assert_array_equal(again, expected[[1, 0]])


def _write_vectors(path, texts, vectors, *, shas=None):
    pq.write_table(
        pa.table(
            {
                "text_sha256": shas or [text_sha256(t) for t in texts],
                "text": texts,
                "vector": pa.FixedSizeListArray.from_arrays(pa.array(np.asarray(vectors, np.float32).ravel()), 2),
            }
        ),
        path,
    )


def test_parquet_import_is_idempotent_and_checked(tmp_path):
    path = tmp_path / "vectors.parquet"
    _write_vectors(path, ["one", "two"], [[3, 4], [0, 2]])
    cache = EmbeddingCache(tmp_path / "lancedb", "m")
    result = cache.import_parquet(path)
    assert (result.n_rows, result.n_new, result.dimension) == (2, 2, 2)
    assert cache.import_parquet(path).n_new == 0
    vectors, n_embedded = cache.vectors_for(["one"], None)
    assert n_embedded == 0 and vectors.tolist() == [[pytest.approx(0.6), pytest.approx(0.8)]]
    _write_vectors(path, ["one", "two"], [[3, 4], [0, 2]], shas=[text_sha256("one"), text_sha256("zwei")])
    with pytest.raises(InputError, match=r"row 2, field 'text_sha256'"):
        cache.import_parquet(path)
    pq.write_table(pa.table({"text_sha256": [text_sha256("x")]}), path)
    with pytest.raises(InputError, match="field 'vector'"):
        cache.import_parquet(path)


def test_a_file_imported_whole_before_is_not_read_again(tmp_path, monkeypatch):
    # Same bytes, same cache: the recorded import answers (the file is not opened as Parquet);
    # another model's cache, a cleared cache or changed bytes import the file afresh.
    from biaswh.ingest.common import embedding_cache

    path = tmp_path / "vectors.parquet"
    _write_vectors(path, ["one", "two"], [[3, 4], [0, 2]])
    cache = EmbeddingCache(tmp_path / "lancedb", "m")
    first = cache.import_parquet(path)
    reads = []
    read_table = embedding_cache.pq.read_table
    monkeypatch.setattr(embedding_cache.pq, "read_table", lambda *a, **k: reads.append(a) or read_table(*a, **k))
    copy = tmp_path / "copy.parquet"
    copy.write_bytes(path.read_bytes())
    again = cache.import_parquet(copy)
    assert reads == [] and (again.n_rows, again.n_new, again.dimension) == (2, 0, 2)
    assert (again.path, again.source_sha256) == (str(copy), first.source_sha256)
    assert EmbeddingCache(tmp_path / "lancedb", "other").import_parquet(path).n_new == 2 and len(reads) == 1
    shutil.rmtree(tmp_path / "lancedb" / f"{cache.table_name}.lance")
    assert cache.import_parquet(path).n_new == 2 and len(reads) == 2
    _write_vectors(path, ["one", "three"], [[3, 4], [1, 0]])
    assert cache.import_parquet(path).n_new == 1 and len(reads) == 3
    # The table made again from another file since: the record's hashes are missing, so the
    # first file is read and imported again.
    shutil.rmtree(tmp_path / "lancedb" / f"{cache.table_name}.lance")
    other = tmp_path / "other.parquet"
    _write_vectors(other, ["four"], [[0, 1]])
    assert cache.import_parquet(other).n_new == 1 and len(reads) == 4
    assert cache.import_parquet(copy).n_new == 2 and len(reads) == 5
    assert cache.vectors_for(["one", "two", "four"], None)[1] == 0


@pytest.fixture(scope="module")
def precomputed(tmp_path_factory):
    path = shared_file("embeddings/all-MiniLM-L6-v2.parquet")
    cache = EmbeddingCache(tmp_path_factory.mktemp("lancedb"), "all-MiniLM-L6-v2")
    return path, cache, cache.import_parquet(path)


@pytest.mark.real_data
def test_precomputed_vectors_serve_a_dense_search_of_a_pair_query(precomputed):
    path, cache, result = precomputed
    table = pq.read_table(path, columns=["text_sha256", "kind", "text"])
    assert result.n_new == len(set(table.column("text_sha256").to_pylist())) and result.dimension == 384
    kinds = table.column("kind").to_pylist()
    contexts = [t for t, k in zip(table.column("text").to_pylist(), kinds) if k == "squad_train_context"]
    pairs = shared_file("dialect-pairs/aave_poc_dataset_20250927-193921.json").read_text("utf-8")
    import json

    first_pair = json.loads(pairs)[0]
    query = light_cleanup(first_pair["sae_query"])
    document_vectors, n_embedded = cache.vectors_for(contexts, None)
    query_vectors, _ = cache.vectors_for([query], None)
    assert n_embedded == 0 and document_vectors.shape == (18891, 384)
    (hits,) = DenseIndex(np.arange(len(contexts)), document_vectors).search(query_vectors, depth=10)
    assert len(hits) == 10 and hits.scores[0] > 0.3
    assert "Hastert" in contexts[hits.doc_ids[0]]  # the query asks about Speaker Dennis Hastert


@pytest.mark.real_data
def test_local_model_reproduces_the_precomputed_vectors(precomputed):
    path, cache, _ = precomputed
    table = pq.read_table(path, columns=["kind", "text"])
    kinds, texts = table.column("kind").to_pylist(), table.column("text").to_pylist()
    sample = [texts[kinds.index("dialect_pair_query")], texts[kinds.index("dialect_pair_query") + 1], texts[0][:300]]
    provider = LocalProvider()
    provider.check()
    computed = provider.embed(sample)
    stored, _ = cache.vectors_for(sample[:2], None)
    cosine = np.sum(computed[:2] * stored, axis=1)
    assert cosine.min() > 0.999
    assert computed.shape == (3, 384) and np.allclose(np.linalg.norm(computed, axis=1), 1, atol=1e-5)
