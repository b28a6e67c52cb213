"""The chat pool on Ray: the local answers file, retries in the workers, refusals, and the key kept out of Ray."""

from __future__ import annotations

from pathlib import Path

import pytest

from biaswh.ingest.common.llm.batch import ChatJob, JsonlCache, answer_all
from biaswh.ingest.common.llm.client import EndpointRefused
from biaswh.ingest.common.llm.settings import EndpointSettings
from biaswh.warehouse.errors import UserError
from tests.ingest.chat_stand_in import ChatStandIn

pytestmark = pytest.mark.ray

KEY_VARIABLE = "BIASWH_TEST_RAY_CHAT_KEY"  # never set when the session's Ray started


def _jobs(n: int) -> list[ChatJob]:
    def to_record(number: int):
        return lambda answer: {"id": f"q{number}", "content": answer.content, "attempts": answer.attempts}

    return [
        ChatJob("demo-model", f"question {n} flaky" if n == 5 else f"question {n}", {}, to_record(n)) for n in range(n)
    ]


def _answers_file(tmp_path: Path, name: str, *, pool) -> tuple[str, ChatStandIn]:
    with ChatStandIn(failures={"flaky": [500, 429]}, responder=lambda prompt, body: prompt.upper()) as server:
        settings = EndpointSettings(
            base_url=server.base_url, api_key_env=KEY_VARIABLE, concurrency=4, backoff_seconds=0.01
        )
        cache = JsonlCache(tmp_path / f"{name}.jsonl")
        jobs = _jobs(30)
        answer_all(
            settings, cache, jobs, refused_hint="check the stand-in", order=[f"q{n}" for n in range(30)], pool=pool
        )
    return cache.path.read_text("utf-8"), server


@pytest.fixture(scope="module")
def ray_pool(ray_local):
    from biaswh.compute.common.engine import ComputeSettings, chat_pool

    return chat_pool(ComputeSettings(engine="ray", workers=2))


def test_ray_and_local_write_the_same_answers_file(ray_pool, tmp_path, monkeypatch):
    monkeypatch.delenv(KEY_VARIABLE, raising=False)
    local, local_server = _answers_file(tmp_path, "local", pool=None)
    on_ray, ray_server = _answers_file(tmp_path, "ray", pool=ray_pool)
    assert on_ray == local and local.count("\n") == 30
    assert '"content": "QUESTION 7", "attempts": 1' in on_ray
    assert '"content": "QUESTION 5 FLAKY", "attempts": 3' in on_ray  # the two failures retried in a worker
    assert ray_server.max_in_flight <= 4 and len(ray_server.requests) == len(local_server.requests) == 32


def test_a_refusal_stops_the_step_and_keeps_what_was_answered(ray_pool, tmp_path, monkeypatch):
    monkeypatch.delenv(KEY_VARIABLE, raising=False)
    with ChatStandIn(status_for_all=401) as server:
        settings = EndpointSettings(base_url=server.base_url, api_key_env=KEY_VARIABLE, concurrency=2)
        with pytest.raises(EndpointRefused, match="HTTP 401.*check the stand-in"):
            answer_all(
                settings,
                JsonlCache(tmp_path / "refused.jsonl"),
                _jobs(20),
                refused_hint="check the stand-in",
                pool=ray_pool,
            )
    assert len(server.requests) < 20


def test_the_key_never_travels_through_ray(ray_pool, ray_local, tmp_path, monkeypatch):
    """Set here after Ray started, so the workers lack it: a UserError, and the secret is in no Ray session file."""
    secret = "sk-raytest-not-a-real-key-8d1f"
    monkeypatch.setenv(KEY_VARIABLE, secret)
    with ChatStandIn() as server:
        settings = EndpointSettings(base_url=server.base_url, api_key_env=KEY_VARIABLE, concurrency=2)
        with pytest.raises(UserError, match=f"\\${KEY_VARIABLE} is set here but not on the Ray workers"):
            answer_all(settings, JsonlCache(tmp_path / "keyed.jsonl"), _jobs(4), refused_hint="x", pool=ray_pool)
    assert server.requests == []  # nothing was sent without the key
    session = Path(ray_local._private.worker.global_worker.node.get_session_dir_path())
    leaked = [p for p in session.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]
    assert leaked == []
