"""Word-vector ingest: every format reads the same vectors, bad files name file and row, re-ingest is a no-op."""

from __future__ import annotations

import lancedb
import numpy as np
import pytest

from biaswh.compute.weat.vectors import LanceVectors, read_embedding
from biaswh.ingest.weat.word_vector_readers import read_word_vectors
from biaswh.ingest.weat.word_vectors import load_word_vectors
from biaswh.warehouse.errors import InputError, UserError
from tests.fingerprints import raw_fingerprint

WORDS = ["John", "rose", "Zoë", "ant", "naïve"]


@pytest.fixture
def vectors() -> np.ndarray:
    return np.random.default_rng(7).normal(size=(len(WORDS), 4)).astype(np.float32)


def write_text(path, words, vectors, *, header: bool):
    lines = [f"{len(words)} {vectors.shape[1]}"] if header else []
    lines += [w + " " + " ".join(repr(float(v)) for v in row) for w, row in zip(words, vectors)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_binary(path, words, vectors):
    with open(path, "wb") as handle:
        handle.write(f"{len(words)} {vectors.shape[1]}\n".encode())
        for word, row in zip(words, vectors):
            handle.write(word.encode("utf-8") + b" " + row.astype("<f4").tobytes() + b"\n")
    return path


@pytest.mark.parametrize("fmt", ["word2vec_binary", "word2vec_text", "glove_text", "fasttext_vec", "npz"])
def test_every_format_reads_the_same_words_and_vectors(tmp_path, vectors, fmt):
    writers = {
        "word2vec_binary": lambda p: write_binary(p.with_suffix(".bin"), WORDS, vectors),
        "word2vec_text": lambda p: write_text(p.with_suffix(".txt"), WORDS, vectors, header=True),
        "glove_text": lambda p: write_text(p.with_suffix(".txt"), WORDS, vectors, header=False),
        "fasttext_vec": lambda p: write_text(p.with_suffix(".vec"), WORDS, vectors, header=True),
        "npz": lambda p: (
            np.savez(p.with_suffix(".npz"), words=np.asarray(WORDS), vectors=vectors),
            p.with_suffix(".npz"),
        )[1],
    }
    path = writers[fmt](tmp_path / "vectors")
    read = read_word_vectors(path, format=fmt)
    assert read.words == WORDS
    np.testing.assert_allclose(read.vectors, vectors, rtol=1e-6)


def test_load_stores_vectors_in_lancedb_with_source_and_metadata_in_duckdb(con, tmp_path, vectors):
    path = write_binary(tmp_path / "v.bin", WORDS, vectors)
    result = load_word_vectors(con, path, name="tiny")
    assert (result.status, result.rows, result.version) == ("loaded", 5, 1)
    row = con.execute(
        "select format, n_words, dim, lancedb_table, source_sha256, run_id from raw.weat_embeddings"
    ).fetchone()
    assert row[:4] == ("word2vec_binary", 5, 4, "weat_vectors__tiny__v1")
    words, stored = read_embedding(row[3])
    assert words == WORDS
    np.testing.assert_allclose(stored, vectors)
    on_demand = LanceVectors(row[3])
    assert on_demand.words() == WORDS
    np.testing.assert_allclose(on_demand[[4, 0, 4]], vectors[[4, 0, 4]])
    arrow = lancedb.connect(str(tmp_path / "warehouse" / "lancedb")).open_table(row[3]).to_arrow()
    assert set(arrow.column("source_sha256").to_pylist()) == {row[4]}
    assert set(arrow.column("run_id").to_pylist()) == {row[5]}


def test_reingest_is_a_no_op_and_a_changed_file_is_a_new_version(con, tmp_path, vectors):
    path = tmp_path / "v.npz"
    np.savez(path, words=np.asarray(WORDS), vectors=vectors)
    load_word_vectors(con, path, name="tiny")
    before = raw_fingerprint(con)
    again = load_word_vectors(con, path, name="tiny")
    assert again.status == "unchanged"
    assert raw_fingerprint(con) == before
    np.savez(path, words=np.asarray(WORDS), vectors=vectors * 2)
    changed = load_word_vectors(con, path, name="tiny")
    assert (changed.status, changed.version) == ("loaded", 2)
    assert con.execute("select count(*) from raw.weat_embeddings").fetchone()[0] == 2
    np.testing.assert_allclose(read_embedding("weat_vectors__tiny__v2")[1], vectors * 2)


def test_an_existing_lancedb_table_is_a_source(con, tmp_path, vectors):
    database = lancedb.connect(str(tmp_path / "external"))
    database.create_table("glove_small", data=[{"word": w, "vector": v.tolist()} for w, v in zip(WORDS, vectors)])
    result = load_word_vectors(con, tmp_path / "external", name="from_lance", format="lancedb", table="glove_small")
    assert result.rows == 5
    words, stored = read_embedding("weat_vectors__from_lance__v1")
    assert words == WORDS
    np.testing.assert_allclose(stored, vectors)


def test_repeated_words_keep_the_first_vector(tmp_path, vectors):
    path = write_text(tmp_path / "v.txt", WORDS + ["rose"], np.vstack([vectors, vectors[:1] * 9]), header=False)
    read = read_word_vectors(path, format="glove_text")
    assert read.words == WORDS and read.n_duplicate_words == 1
    np.testing.assert_allclose(read.vectors[1], vectors[1])


def _error(con, tmp_path, path, **options) -> str:
    before = raw_fingerprint(con)
    with pytest.raises(InputError) as caught:
        load_word_vectors(con, path, name="bad", **options)
    assert raw_fingerprint(con) == before, "a failed ingest must leave the warehouse unchanged"
    assert not (tmp_path / "warehouse" / "lancedb" / "weat_vectors__bad__v1.lance").exists()
    return str(caught.value)


def test_corrupt_npz_names_the_file(con, tmp_path):
    path = tmp_path / "corrupt.npz"
    path.write_bytes(b"PK\x03\x04 this is not really a zip archive")
    message = _error(con, tmp_path, path)
    assert str(path) in message and "not a readable .npz" in message


def test_npz_with_mismatched_rows_or_wrong_dims(con, tmp_path, vectors):
    path = tmp_path / "rows.npz"
    np.savez(path, words=np.asarray(WORDS), vectors=vectors[:3])
    assert "5 words but 3 vector rows" in _error(con, tmp_path, path)
    np.savez(path, words=np.asarray(WORDS), vectors=vectors.reshape(-1))
    assert "'vectors' must be a 2-d numeric array" in _error(con, tmp_path, path)
    np.savez(path, words=np.asarray(WORDS), other=vectors)
    assert "missing array 'vectors'" in _error(con, tmp_path, path)


def test_text_row_with_wrong_dimension_names_row_and_word(con, tmp_path, vectors):
    path = write_text(tmp_path / "v.txt", WORDS, vectors, header=True)
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[3] = "Zoë 0.1 0.2"  # the third vector, on line 4 after the header
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    message = _error(con, tmp_path, path)
    assert "row 3" in message and "field 'Zoë'" in message and "has 2 values, expected 4" in message


def test_non_utf8_text_vectors_name_the_row(con, tmp_path, vectors):
    path = write_text(tmp_path / "v.vec", WORDS, vectors, header=True)
    data = path.read_bytes().replace("naïve".encode(), b"na\xefve")
    path.write_bytes(data)
    message = _error(con, tmp_path, path)
    assert str(path) in message and "row 5" in message and "not valid UTF-8" in message


def test_truncated_binary_and_non_finite_values(con, tmp_path, vectors):
    path = write_binary(tmp_path / "v.bin", WORDS, vectors)
    path.write_bytes(path.read_bytes()[:-10])
    assert "row 5" in _error(con, tmp_path, path)
    broken = vectors.copy()
    broken[1, 2] = np.nan
    np.savez(tmp_path / "nan.npz", words=np.asarray(WORDS), vectors=broken)
    message = _error(con, tmp_path, tmp_path / "nan.npz")
    assert "row 2" in message and "field 'rose'" in message and "NaN" in message


def test_unknown_suffix_and_bad_name_are_refused(con, tmp_path):
    path = tmp_path / "vectors.dat"
    path.write_text("a 1 2\n", encoding="utf-8")
    assert "cannot tell the vector format" in _error(con, tmp_path, path)
    with pytest.raises(UserError, match="embedding name"):
        load_word_vectors(con, path, name="no spaces please", format="glove_text")


def test_cli_ingests_vectors_and_reports_bad_files_in_one_line(tmp_path, vectors):
    from tests.conftest import run_here

    home = tmp_path / "cli-home"
    good = tmp_path / "v.npz"
    np.savez(good, words=np.asarray(WORDS), vectors=vectors)
    assert (
        "loaded 5 rows into weat_embeddings 'tiny' version 1"
        in run_here("ingest", "vectors", str(good), "--name", "tiny", home=home).stdout
    )
    bad = write_text(tmp_path / "bad.txt", WORDS, vectors, header=False)
    bad.write_bytes(bad.read_bytes().replace(b"John", b"J\xffhn"))
    failed = run_here("ingest", "vectors", str(bad), "--name", "bad", "--format", "glove_text", home=home, check=False)
    assert failed.returncode == 2
    assert failed.stderr.strip().count("\n") == 0 and "row 1" in failed.stderr and "not valid UTF-8" in failed.stderr


def test_a_text_file_read_as_binary_is_refused_not_read_as_tiny_floats(con, tmp_path, vectors):
    text = write_text(tmp_path / "v.txt", WORDS, vectors, header=True)
    posing = tmp_path / "v.bin"
    posing.write_bytes(text.read_bytes())
    message = _error(con, tmp_path, posing)  # auto: .bin means word2vec_binary
    assert str(posing) in message and "field 'format'" in message and "holds text" in message


@pytest.mark.parametrize("fmt", ["word2vec_text", "glove_text", "fasttext_vec"])
def test_a_binary_file_read_as_text_is_refused(con, tmp_path, vectors, fmt):
    binary = write_binary(tmp_path / "v.bin", WORDS, vectors)
    posing = tmp_path / "v.txt"
    posing.write_bytes(binary.read_bytes())
    with pytest.raises(InputError) as error:
        load_word_vectors(con, posing, name="posing", format=fmt)
    assert error.value.field == "format" and "holds binary data" in str(error.value)


def test_a_header_announcing_more_vectors_than_the_file_can_hold_is_refused_before_allocating(con, tmp_path, vectors):
    path = write_binary(tmp_path / "v.bin", WORDS, vectors)
    path.write_bytes(b"100000000000 300\n" + path.read_bytes().split(b"\n", 1)[1])
    with pytest.raises(InputError) as error:
        load_word_vectors(con, path, name="huge")
    assert error.value.field == "count" and "100,000,000,000 vectors of 300 dimensions" in str(error.value)


@pytest.mark.parametrize(
    ("name", "content", "fmt"),
    [
        ("zero.bin", b"3 0\na b c ", "word2vec_binary"),
        ("zero.txt", b"3 0\na\nb\nc\n", "word2vec_text"),
        ("zero_glove.txt", b"a\nb\nc\n", "glove_text"),
    ],
)
def test_zero_dimension_vectors_are_refused(con, tmp_path, name, content, fmt):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(InputError) as error:
        load_word_vectors(con, path, name="zero", format=fmt)
    assert error.value.field == "dim" and "0 dimensions" in str(error.value)


def test_zero_dimension_npz_is_refused(con, tmp_path):
    path = tmp_path / "zero.npz"
    np.savez(path, words=np.asarray(WORDS), vectors=np.zeros((len(WORDS), 0), dtype=np.float32))
    assert "0 dimensions" in _error(con, tmp_path, path)


def test_magic_bytes_of_another_format_are_refused_naming_it(con, tmp_path, vectors):
    npz = tmp_path / "v.npz"
    np.savez(npz, words=np.asarray(WORDS), vectors=vectors)
    posing = tmp_path / "v.bin"
    posing.write_bytes(npz.read_bytes())
    with pytest.raises(InputError) as error:
        load_word_vectors(con, posing, name="posing")
    assert error.value.field == "format" and "zip archive (an .npz? use format npz)" in str(error.value)
    text = write_text(tmp_path / "v.txt", WORDS, vectors, header=True)
    with pytest.raises(InputError) as error:
        load_word_vectors(con, text, name="posing", format="npz")
    assert error.value.field == "format" and "not an .npz archive (no zip header)" in str(error.value)
    gz = tmp_path / "v.vec"
    gz.write_bytes(b"\x1f\x8b\x08\x00" + b"\x00" * 20)
    with pytest.raises(InputError, match="gzip-compressed"):
        load_word_vectors(con, gz, name="posing")
