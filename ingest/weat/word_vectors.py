"""Ingest a word embedding: vectors into LanceDB, its metadata into ``raw.weat_embeddings``.

One LanceDB table per (embedding, version), named ``weat_vectors__<name>__v<version>``, holds
``word``, ``vector``, ``row`` and the ``run_id`` / ``source_sha256`` that loaded it. Identical
re-ingests are no-ops (``biaswh.ingest.common.versions``); a changed source becomes a new version.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Literal

import duckdb
import pyarrow as pa

from biaswh.ingest.common.versions import IngestResult, SourceFile, write_version
from biaswh.ingest.weat.sentence_vectors import DEFAULT_TEMPLATES, encode_words, model_sha256, resolve_model_path
from biaswh.ingest.weat.word_vector_format import WordVectors, content_sha256
from biaswh.ingest.weat.word_vector_readers import SUFFIX_FORMATS, read_word_vectors
from biaswh.warehouse.errors import InputError, UserError
from biaswh.warehouse.runs.registry import file_sha256
from biaswh.warehouse.settings.home import warehouse_paths

EmbeddingFormat = Literal[
    "auto", "word2vec_binary", "word2vec_text", "glove_text", "fasttext_vec", "npz", "lancedb", "sentence_encoder"
]
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def lancedb_table_name(name: str, version: int) -> str:
    """The LanceDB table holding version ``version`` of the vector set ``name``."""
    return f"weat_vectors__{name}__v{version}"


def _detect_format(path: Path) -> str:
    if path.is_dir():
        return "lancedb"
    fmt = SUFFIX_FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise InputError(
            path,
            f"cannot tell the vector format from '{path.suffix or '(no suffix)'}': pass format="
            " word2vec_binary, word2vec_text, glove_text, fasttext_vec, npz or lancedb",
        )
    return fmt


def _write_lancedb(table_name: str, vectors: WordVectors, *, run_id: str, sha256: str) -> None:
    import lancedb

    arrow = pa.table(
        {
            "word": pa.array(vectors.words, pa.string()),
            "vector": pa.FixedSizeListArray.from_arrays(
                pa.array(vectors.vectors.reshape(-1), pa.float32()), vectors.dim
            ),
            "row": pa.array(range(1, len(vectors.words) + 1), pa.int32()),
            "run_id": pa.array([run_id] * len(vectors.words), pa.string()),
            "source_sha256": pa.array([sha256] * len(vectors.words), pa.string()),
        }
    )
    lancedb_dir = warehouse_paths().lancedb_dir
    lancedb_dir.mkdir(parents=True, exist_ok=True)
    # Overwrite: a version that failed after writing here is retried under the same table name.
    lancedb.connect(str(lancedb_dir)).create_table(table_name, data=arrow, mode="overwrite")


def load_word_vectors(
    con: duckdb.DuckDBPyConnection,
    path: str | Path,
    *,
    name: str,
    format: EmbeddingFormat = "auto",
    table: str | None = None,
    words: list[str] | None = None,
    templates: tuple[str, ...] = DEFAULT_TEMPLATES,
    precomputed: tuple[str, ...] = (),
) -> IngestResult:
    """Load an embedding as a new version (or do nothing when the identical source is loaded).

    Parameters
    ----------
    con : an open, writable warehouse connection.
    path : the vector file; a LanceDB folder for ``format="lancedb"``; the model (a folder or
        ``hf:sentence-transformers/all-MiniLM-L6-v2``, served from the local package) for
        ``format="sentence_encoder"``.
    name : the embedding's name, as studies refer to it.
    format : the file format; ``auto`` decides from the suffix (``.bin``, ``.txt``, ``.vec``, ``.npz``, a folder).
    table : the table to read for ``format="lancedb"`` (default: the folder's name).
    words : the words to encode for ``format="sentence_encoder"`` (e.g. every word of the tests).
    templates : sentence templates with ``{word}`` for ``format="sentence_encoder"``; vectors are their mean.
    precomputed : Parquet files of the sentence encoder's vectors (``text_sha256``, ``vector``, ``text``)
        for ``format="sentence_encoder"``, imported into the embedding cache before encoding: the
        model loads only for sentences they lack. They are not part of the version's identity (the
        vectors are the model's either way); a file recording another model is skipped.
    """
    if not NAME_PATTERN.match(name or ""):
        raise UserError(f"embedding name {name!r} must be letters, digits, '_', '-' or '.' (at most 64)")
    options: dict = {}
    if format == "sentence_encoder":
        model_path = resolve_model_path(str(path))
        unique_words = list(dict.fromkeys(words or []))
        sha256 = model_sha256(model_path)
        source_path: str | Path = str(path)
        options = {
            "model": str(path),
            "templates": list(templates),
            "n_words_requested": len(words or []),
            "words_sha256": hashlib.sha256("\n".join(unique_words).encode("utf-8")).hexdigest(),
        }
        # Encoding is slow: only done inside rows(), i.e. when this is not an identical re-ingest.
        read = lambda: encode_words(  # noqa: E731
            unique_words, model_path=model_path, templates=tuple(templates), precomputed=tuple(precomputed)
        )
    else:
        if precomputed:
            raise UserError(f'{name}: precomputed vectors are for format = "sentence_encoder", not {format!r}')
        source_path = Path(path).expanduser().resolve()
        fmt = _detect_format(source_path) if format == "auto" else format
        vectors = read_word_vectors(source_path, format=fmt, table=table)
        read = lambda: vectors  # noqa: E731
        format = fmt
        if fmt == "lancedb":
            sha256 = content_sha256(vectors)
            options = {"table": table or source_path.stem}
        else:
            sha256 = file_sha256(source_path)

    def rows(run, version: int) -> pa.Table:
        """The version's one row, its vectors first written to their LanceDB table."""
        loaded = read()
        table_name = lancedb_table_name(name, version)
        _write_lancedb(table_name, loaded, run_id=run.run_id, sha256=sha256)
        return pa.table(
            {
                "lancedb_table": [table_name],
                "n_words": [len(loaded.words)],
                "dim": [loaded.dim],
                "n_duplicate_words": [loaded.n_duplicate_words],
            }
        )

    source = SourceFile("weat_embeddings", name, source_path, sha256, parameters={"format": format, **options})
    constants = {
        "embedding": name,
        "format": format,
        "source_path": str(source_path),
        "options": json.dumps(options, sort_keys=True),
    }
    return write_version(con, source, rows, raw_table="weat_embeddings", constants=constants, counted_by="n_words")
