"""The ``openai`` embedding provider: any OpenAI-compatible embeddings API, through the one LLM client.

One of the providers of :mod:`biaswh.compute.retrieval.embeddings` (its interface: ``model_id``,
``check()``, ``preflight()``, ``embed(texts)`` returning unit-length float32 rows, ``describe()``).
The key is read only from the environment variable ``api_key_env`` and never described.
"""

from __future__ import annotations

import os

import numpy as np

from biaswh.compute.retrieval.dense import unit_rows
from biaswh.ingest.common.llm.settings import DEFAULT_MAX_REPLY_BYTES, EndpointSettings
from biaswh.warehouse.errors import UserError

OPENAI_BASE_URL = "https://api.openai.com/v1"


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

    def close(self) -> None:
        """Close the client and its connections (a later request opens a new one): ``preflight`` and
        ``embed`` end with it, so nothing stays open between the embedding steps, nor after the last."""
        if self._client is not None:
            self._client.close()
            self._client = None

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
        finally:
            self.close()
        if self.model not in served:
            raise UserError(
                f"unknown embedding model {self.model!r}: the API at {self.base_url or 'OpenAI'} serves "
                f"{', '.join(sorted(served)[:10]) or 'no models'}"
            )

    def embed(self, texts: list[str]) -> np.ndarray:
        rows = []
        try:
            for start in range(0, len(texts), self.batch_size):
                batch = list(texts[start : start + self.batch_size])
                payload = {"model": self.model, "input": batch}
                n_texts = len(batch)
                rows.extend(self._call("POST", "embeddings", payload, lambda data, n=n_texts: _embedding_rows(data, n)))
        finally:
            self.close()
        self.n_embedded += len(texts)
        return unit_rows(np.asarray(rows, dtype=np.float32).reshape(len(texts), -1))

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
