"""Readers for word-vector files: word2vec binary and text, GloVe text, fastText ``.vec``, NumPy ``.npz``, LanceDB.

Each reader returns a :class:`WordVectors` (words in file order, a float32 matrix) or raises
:class:`~biaswh.warehouse.errors.InputError` naming the file, the row (the n-th vector, counted from 1)
and the field. Written with numpy only, so no gensim is needed.
"""

from __future__ import annotations

import mmap
import zipfile
from pathlib import Path
from typing import Literal

import numpy as np

from biaswh.ingest.weat.word_vector_format import VectorFormat, WordVectors, finish_vectors
from biaswh.warehouse.errors import InputError


def _header(path: Path, line: str) -> tuple[int, int] | None:
    parts = line.split()
    if len(parts) == 2 and all(p.isdigit() for p in parts):
        return int(parts[0]), int(parts[1])
    return None


# Bytes a text vectors file never holds (tab, newline and carriage return aside); float32 data is full of them.
_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 10, 13))
_SAMPLE_BYTES = 4096


def _looks_binary(sample: bytes) -> bool:
    """Whether bytes that should be text hold raw numbers (NUL or other control bytes)."""
    return any(b in _CONTROL_BYTES for b in sample)


def _looks_like_text_numbers(sample: bytes) -> bool:
    """Whether bytes that should be raw float32 values are lines of a word and decimal numbers instead."""
    if len(sample) == _SAMPLE_BYTES:
        sample = sample[: sample.rfind(b"\n") + 1] or sample  # whole lines only
    if _looks_binary(sample):
        return False
    try:
        lines = [line.split() for line in sample.decode("utf-8").splitlines() if line.strip()]
        return bool(lines) and all(len(line) > 1 and [float(v) for v in line[1:]] for line in lines)
    except (UnicodeDecodeError, ValueError):
        return False


# Magic bytes of files that are never word2vec or text vectors.
_MAGIC = {
    b"PK\x03\x04": "a zip archive (an .npz? use format npz)",
    b"\x93NUMPY": "a single NumPy .npy array",
    b"\x1f\x8b": "gzip-compressed (decompress it first)",
}


def _refuse_foreign_magic(path: Path, head: bytes, expected: str) -> None:
    for magic, what in _MAGIC.items():
        if head.startswith(magic):
            raise InputError(path, f"is {what}, not {expected}", field="format")


def _check_header_dimensions(path: Path, dim: int) -> None:
    if dim == 0:
        raise InputError(path, "header announces vectors of 0 dimensions", field="dim")


def read_text_vectors(path: Path, *, header: Literal["auto", "yes", "no"] = "auto") -> WordVectors:
    """Read ``word v1 v2 ...`` lines (word2vec text and fastText ``.vec`` have a ``count dim`` header, GloVe none).

    A file of raw binary numbers (control bytes in its first 4 KB) is refused as such.
    """
    with open(path, "rb") as handle:
        head = handle.read(_SAMPLE_BYTES)
        _refuse_foreign_magic(path, head, "text vectors")
        if _looks_binary(head):
            raise InputError(
                path,
                "holds binary data, not text vectors: is it word2vec binary (format word2vec_binary, suffix .bin)?",
                field="format",
            )
    words: list[str] = []
    rows: list[np.ndarray] = []
    dim = None
    expected_count = None
    with open(path, "rb") as handle:
        for line_number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError as exc:
                raise InputError(
                    path,
                    f"line {line_number} is not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})",
                    row=len(words) + 1,
                ) from None
            if line_number == 1 and header != "no":
                found = _header(path, line)
                if found is not None:
                    expected_count, dim = found
                    _check_header_dimensions(path, dim)
                    continue
                if header == "yes":
                    raise InputError(path, "line 1 should be a '<count> <dim>' header", row=None)
            if not line.strip():
                continue
            word, *values = line.rstrip(" ").split(" ")
            row = len(words) + 1
            if dim is None:
                dim = len(values)
            if len(values) != dim:
                raise InputError(
                    path, f"line {line_number} has {len(values)} values, expected {dim}", row=row, field=word
                )
            try:
                rows.append(np.asarray(values, dtype=np.float32))
            except ValueError:
                raise InputError(
                    path, f"line {line_number} has a value that is not a number", row=row, field=word
                ) from None
            words.append(word)
    if expected_count is not None and expected_count != len(words):
        raise InputError(path, f"header announces {expected_count} vectors but the file has {len(words)}")
    if not rows:
        raise InputError(path, "contains no word vectors")
    return finish_vectors(path, words, np.vstack(rows))


def read_word2vec_binary(path: Path) -> WordVectors:
    """Read the original word2vec binary format: a ``count dim`` line, then ``word<space>`` + dim float32 each.

    The file is memory-mapped and each vector copied into one preallocated matrix, so a
    full-size file (3 million words) needs about its own size in memory, not several times it.
    Before anything is allocated the header must be plausible (at least one dimension, and
    ``count * (dim * 4 + 1)`` bytes must fit in the file), and the bytes after it must not be
    a text vectors file's words and decimal numbers.
    """
    with open(path, "rb") as handle:
        if path.stat().st_size == 0:
            raise InputError(path, "empty file: not a word2vec binary file")
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            _refuse_foreign_magic(path, data[:8], "a word2vec binary file")
            end = data.find(b"\n")
            header = _header(path, data[:end].decode("ascii", errors="replace")) if end > 0 else None
            if header is None:
                raise InputError(path, "not a word2vec binary file: line 1 should be a '<count> <dim>' header")
            count, dim = header
            _check_header_dimensions(path, dim)
            if count == 0:
                raise InputError(path, "header announces 0 vectors", field="count")
            needed = count * (dim * 4 + 1)  # each vector: the space after its word, then dim float32 values
            if needed > len(data) - end - 1:
                raise InputError(
                    path,
                    f"header announces {count:,} vectors of {dim:,} dimensions, which need at"
                    f" least {needed:,} bytes, but the file holds {len(data) - end - 1:,} after"
                    " the header",
                    field="count",
                )
            if _looks_like_text_numbers(data[end + 1 : end + 1 + _SAMPLE_BYTES]):
                raise InputError(
                    path,
                    "holds text (words and decimal numbers), not binary float32 vectors: is it"
                    " word2vec text (format word2vec_text, suffix .txt)?",
                    field="format",
                )
            vectors = np.empty((count, dim), dtype=np.float32)
            words = []
            offset, width = end + 1, 4 * dim
            for row in range(1, count + 1):
                while offset < len(data) and data[offset : offset + 1] in (b"\n", b" "):
                    offset += 1  # some writers end each vector with a newline
                space = data.find(b" ", offset)
                if space < 0 or space + 1 + width > len(data):
                    raise InputError(
                        path, f"file ends early: vector {row} of the {count} announced is incomplete", row=row
                    )
                try:
                    words.append(data[offset:space].decode("utf-8"))
                except UnicodeDecodeError:
                    raise InputError(
                        path, f"word at byte offset {offset} is not valid UTF-8", row=row, field="word"
                    ) from None
                vectors[row - 1] = np.frombuffer(data[space + 1 : space + 1 + width], dtype="<f4")
                offset = space + 1 + width
    return finish_vectors(path, words, vectors)


def read_npz(path: Path) -> WordVectors:
    """Read a NumPy ``.npz`` with arrays ``words`` [n] (strings) and ``vectors`` [n, dim] (numbers)."""
    # Open the file ourselves so that a corrupt archive cannot leak the handle.
    with open(path, "rb") as handle:
        if not handle.read(4) == b"PK\x03\x04":
            handle.seek(0)
            if handle.read(6) != b"\x93NUMPY":  # a lone .npy gets its own message below
                raise InputError(
                    path,
                    "is not an .npz archive (no zip header): is it text or word2vec binary"
                    " vectors (format word2vec_text, glove_text or word2vec_binary)?",
                    field="format",
                )
        handle.seek(0)
        try:
            archive = np.load(handle, allow_pickle=False)
        except (zipfile.BadZipFile, ValueError, OSError, EOFError) as exc:
            raise InputError(path, f"not a readable .npz archive ({exc})") from None
        if not isinstance(archive, np.lib.npyio.NpzFile):
            raise InputError(path, "not an .npz archive (a single .npy array?)")
        with archive:
            missing = [k for k in ("words", "vectors") if k not in archive.files]
            if missing:
                raise InputError(path, f"missing array {missing[0]!r} (has {sorted(archive.files)})", field=missing[0])
            try:
                words, vectors = archive["words"], archive["vectors"]
            except (ValueError, zipfile.BadZipFile, OSError, EOFError) as exc:
                raise InputError(path, f"array cannot be read ({exc})") from None
    if words.dtype.kind not in "US" or words.ndim != 1:
        raise InputError(
            path, f"'words' must be a 1-d array of strings, got {words.dtype} {words.shape}", field="words"
        )
    if vectors.ndim != 2 or vectors.dtype.kind not in "fiu":
        raise InputError(
            path, f"'vectors' must be a 2-d numeric array, got {vectors.dtype} {vectors.shape}", field="vectors"
        )
    if vectors.shape[0] != words.shape[0]:
        raise InputError(path, f"{words.shape[0]} words but {vectors.shape[0]} vector rows", field="vectors")
    if words.dtype.kind == "S":
        decoded = []
        for row, word in enumerate(words.tolist(), start=1):
            try:
                decoded.append(word.decode("utf-8"))
            except UnicodeDecodeError:
                raise InputError(path, "word is not valid UTF-8", row=row, field="words") from None
        return finish_vectors(path, decoded, vectors)
    return finish_vectors(path, words.tolist(), vectors)


def read_lancedb_table(
    path: Path, *, table: str, word_column: str = "word", vector_column: str = "vector"
) -> WordVectors:
    """Read words and vectors from a table of an existing LanceDB database folder."""
    import lancedb

    if not path.is_dir():
        raise InputError(path, "a LanceDB source must be a database folder")
    database = lancedb.connect(str(path))
    try:
        arrow = database.open_table(table).to_arrow()
    except (ValueError, FileNotFoundError, RuntimeError) as exc:
        raise InputError(path, f"cannot open LanceDB table {table!r} ({exc})", field="table") from None
    for column in (word_column, vector_column):
        if column not in arrow.column_names:
            raise InputError(path, f"table {table!r} has no column {column!r} (has {arrow.column_names})", field=column)
    words = arrow.column(word_column).to_pylist()
    vectors_list = arrow.column(vector_column).to_pylist()
    lengths = {len(v) if v is not None else -1 for v in vectors_list}
    if len(lengths) != 1 or -1 in lengths:
        row = next(i for i, v in enumerate(vectors_list, start=1) if v is None or len(v) != len(vectors_list[0] or []))
        raise InputError(path, "vectors have different lengths or are missing", row=row, field=vector_column)
    return finish_vectors(path, [str(w) for w in words], np.asarray(vectors_list, dtype=np.float32))


SUFFIX_FORMATS: dict[str, VectorFormat] = {
    ".bin": "word2vec_binary",
    ".npz": "npz",
    ".vec": "fasttext_vec",
    ".txt": "word2vec_text",
}


def read_word_vectors(path: Path, *, format: VectorFormat, table: str | None = None) -> WordVectors:
    """Dispatch to the reader of ``format``."""
    if format != "lancedb" and not path.is_file():
        raise InputError(path, "no such file")
    readers = {
        "word2vec_binary": lambda: read_word2vec_binary(path),
        "word2vec_text": lambda: read_text_vectors(path, header="auto"),
        "fasttext_vec": lambda: read_text_vectors(path, header="yes"),
        "glove_text": lambda: read_text_vectors(path, header="no"),
        "npz": lambda: read_npz(path),
        "lancedb": lambda: read_lancedb_table(path, table=table or path.stem),
    }
    return readers[format]()
