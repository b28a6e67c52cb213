"""Word vectors in memory: the :class:`WordVectors` every reader returns, the checks every reader
ends with (:func:`finish_vectors`), and the content identity of a source that is not one file."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from biaswh.warehouse.errors import InputError

VectorFormat = Literal["word2vec_binary", "word2vec_text", "glove_text", "fasttext_vec", "npz", "lancedb"]


@dataclass(frozen=True)
class WordVectors:
    """Words (file order, first occurrence kept) and their vectors, one row per word."""

    words: list[str]
    vectors: np.ndarray
    n_duplicate_words: int

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1])


def finish_vectors(path: Path, words: list[str], vectors: np.ndarray) -> WordVectors:
    """Check the matrix and drop repeated words (the first occurrence wins, as gensim does)."""
    if not words:
        raise InputError(path, "contains no word vectors")
    if vectors.ndim != 2 or vectors.shape[1] == 0:
        raise InputError(path, "vectors have 0 dimensions", field="dim")
    finite = np.isfinite(vectors).all(axis=1)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0]) + 1
        raise InputError(path, "vector has NaN or infinite values", row=row, field=words[row - 1])
    for row, word in enumerate(words, start=1):
        if not word or word != word.strip():
            raise InputError(path, f"empty word or word with surrounding whitespace: {word!r}", row=row)
    _, first = np.unique(np.asarray(words, dtype=object), return_index=True)
    if len(first) == len(words):
        return WordVectors(words, vectors.astype(np.float32, copy=False), 0)
    keep = np.sort(first)
    return WordVectors([words[i] for i in keep], vectors[keep].astype(np.float32, copy=False), len(words) - len(keep))


def content_sha256(vectors: WordVectors) -> str:
    """sha256 of the words and vector bytes: the identity of a source that is not a single file."""
    digest = hashlib.sha256()
    digest.update("\n".join(vectors.words).encode("utf-8"))
    digest.update(np.ascontiguousarray(vectors.vectors, dtype="<f4").tobytes())
    return digest.hexdigest()
