"""Embedding providers: the openai client against a local stand-in server, and checks before work."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from biaswh.compute.retrieval.embeddings import LocalProvider, provider_from_settings
from biaswh.compute.retrieval.openai_embeddings import OpenAIProvider
from biaswh.warehouse.errors import UserError


class _StandIn(BaseHTTPRequestHandler):
    """A tiny OpenAI-compatible API on 127.0.0.1: /v1/models and /v1/embeddings.

    ``server.failures`` lists status codes to answer the next embedding requests with.
    """

    def log_message(self, *args):  # keep pytest output clean
        pass

    def _reply(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.server.seen_keys.append(self.headers.get("Authorization"))
        if self.path.endswith("/models"):
            self._reply(
                200,
                {"object": "list", "data": [{"id": "tiny-embed", "object": "model", "created": 0, "owned_by": "test"}]},
            )
        else:
            self._reply(404, {"error": {"message": "not found"}})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(body)
        if self.server.failures:
            status = self.server.failures.pop(0)
            self._reply(status, {"error": {"message": f"status {status}", "type": "test"}})
            return
        # Return the items out of order: the provider must sort by index.
        data = [
            {"object": "embedding", "index": i, "embedding": [float(len(t)), 1.0, 0.0]}
            for i, t in enumerate(body["input"])
        ][::-1]
        self._reply(
            200,
            {"object": "list", "data": data, "model": body["model"], "usage": {"prompt_tokens": 1, "total_tokens": 1}},
        )


@pytest.fixture
def api():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _StandIn)
    server.requests, server.failures, server.seen_keys = [], [], []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server, f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_openai_provider_batches_and_retries_after_500_and_429(api, monkeypatch):
    server, base_url = api
    monkeypatch.setenv("TEST_EMBED_KEY", "sk-test-secret")
    provider = OpenAIProvider(
        model="tiny-embed", base_url=base_url, api_key_env="TEST_EMBED_KEY", batch_size=2, backoff_seconds=0.01
    )
    provider.check()
    provider.preflight()
    server.failures.extend([500, 429])
    vectors = provider.embed(["a", "bbb", "cc", "dddd", "e"])
    assert [len(r["input"]) for r in server.requests] == [2, 2, 2, 2, 1]  # two failed tries, then 3 batches
    expected = np.array([[1, 1, 0], [3, 1, 0], [2, 1, 0], [4, 1, 0], [1, 1, 0]], dtype=np.float32)
    np.testing.assert_allclose(vectors, expected / np.linalg.norm(expected, axis=1, keepdims=True), rtol=1e-6)
    assert server.seen_keys == ["Bearer sk-test-secret"]
    assert "sk-test-secret" not in json.dumps(provider.describe())
    assert provider.model_id == f"openai:tiny-embed@{base_url}"


def test_openai_gives_up_after_its_retries_in_one_line(api, monkeypatch):
    from biaswh.ingest.common.llm.client import EndpointFailed

    server, base_url = api
    monkeypatch.setenv("TEST_EMBED_KEY", "k")
    provider = OpenAIProvider(
        model="tiny-embed", base_url=base_url, api_key_env="TEST_EMBED_KEY", max_retries=1, backoff_seconds=0.01
    )
    server.failures.extend([503, 503])
    with pytest.raises(EndpointFailed, match="failed after 2 attempt.*HTTP 503 InternalServerError"):
        provider.embed(["x"])
    assert len(server.requests) == 2


class _KeepAlive(_StandIn):
    protocol_version = "HTTP/1.1"  # the connection stays open after each reply, in the client's pool


def test_openai_provider_closes_its_connections_after_each_step_even_a_failed_one(api, monkeypatch):
    import biaswh.ingest.common.llm.client as client_module

    server, base_url = api
    server.RequestHandlerClass = _KeepAlive
    opened = []

    class Recorded(client_module.EndpointClient):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            opened.append(self)

    monkeypatch.setattr(client_module, "EndpointClient", Recorded)
    monkeypatch.setenv("TEST_EMBED_KEY", "k")
    provider = OpenAIProvider(model="tiny-embed", base_url=base_url, api_key_env="TEST_EMBED_KEY", max_retries=0)
    provider.preflight()
    assert provider.embed(["a", "bb"]).shape == (2, 3)
    server.failures.append(503)
    with pytest.raises(UserError, match="HTTP 503"):
        provider.embed(["c"])
    assert len(opened) == 3 and all(c._http.is_closed for c in opened)
    assert [c._http._transport._pool.connections for c in opened] == [[], [], []]
    assert provider.embed(["d"]).shape == (1, 3) and len(opened) == 4  # a later step opens a new client


def test_unknown_openai_model_is_reported_by_preflight(api, monkeypatch):
    server, base_url = api
    monkeypatch.setenv("TEST_EMBED_KEY", "k")
    provider = OpenAIProvider(model="no-such-model", base_url=base_url, api_key_env="TEST_EMBED_KEY")
    with pytest.raises(UserError, match="unknown embedding model 'no-such-model'.*tiny-embed"):
        provider.preflight()
    assert server.requests == []


def test_missing_key_is_reported_before_any_request(monkeypatch):
    monkeypatch.delenv("NO_SUCH_KEY_VARIABLE", raising=False)
    provider = provider_from_settings(
        {"provider": "openai", "model": "m", "api_key_env": "NO_SUCH_KEY_VARIABLE", "base_url": "http://127.0.0.1:9/v1"}
    )
    with pytest.raises(UserError, match="NO_SUCH_KEY_VARIABLE, which is not set"):
        provider.check()


def test_unknown_local_model_and_provider_are_reported(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(UserError, match="unknown embedding model 'nobody/no-such-model'"):
        LocalProvider(model="nobody/no-such-model").check()
    with pytest.raises(UserError, match="holds no sentence-transformers model"):
        LocalProvider(model=str(tmp_path)).check()
    with pytest.raises(UserError, match="unknown embedding provider 'magic'"):
        provider_from_settings({"provider": "magic"})
    LocalProvider().check()  # the packaged default is always there
