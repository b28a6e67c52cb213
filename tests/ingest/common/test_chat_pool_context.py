"""The command's chat pool: made once, at the first request sent, and only when one is sent."""

from __future__ import annotations

from pathlib import Path

import pytest

from biaswh.ingest.common.llm.batch import ChatJob, JsonlCache, answer_all, chat_pool_for_calls
from biaswh.ingest.common.llm.client import Answer, EndpointFailed
from biaswh.ingest.common.llm.settings import EndpointSettings


class RecordingPool:
    """Answers every job with its prompt reversed and remembers what it was sent."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    def answers(self, settings, jobs, *, refused_hint):
        for job in jobs:
            self.sent.append(job.prompt)
            yield job, Answer(job.prompt[::-1], None, "stand-in", 1, 0, "", settings.base_url)


def _job(n: int) -> ChatJob:
    return ChatJob("m", f"prompt {n}", {}, lambda answer, n=n: {"id": f"q{n}", "content": answer.content})


def test_pool_is_made_once_at_the_first_request_and_used_by_every_batch(tmp_path: Path):
    pool, made = RecordingPool(), []
    settings = EndpointSettings(base_url="http://127.0.0.1:9/v1", api_key_env="NO_SUCH_KEY_SET")
    cache = JsonlCache(tmp_path / "answers.jsonl")

    def factory():
        made.append(1)
        return pool

    with chat_pool_for_calls(factory):
        assert answer_all(settings, cache, [], refused_hint="").n_sent == 0
        assert made == []  # nothing to send: no pool (a cached rerun never starts Ray)
        first = answer_all(settings, cache, [_job(1), _job(2)], refused_hint="")
        second = answer_all(settings, cache, [_job(3)], refused_hint="")
    assert made == [1]
    assert pool.sent == ["prompt 1", "prompt 2", "prompt 3"]
    assert sorted(r["content"] for r in first.records + second.records) == ["1 tpmorp", "2 tpmorp", "3 tpmorp"]
    assert len(cache.path.read_text("utf-8").splitlines()) == 3


def test_outside_the_block_the_local_threads_send(tmp_path: Path):
    pool = RecordingPool()
    with chat_pool_for_calls(lambda: pool):
        pass
    settings = EndpointSettings(base_url="http://127.0.0.1:9/v1", api_key_env="NO_SUCH_KEY_SET", max_retries=0)
    with pytest.raises(EndpointFailed, match="Connection refused"):  # the local client tried: nothing on port 9
        answer_all(settings, JsonlCache(tmp_path / "a.jsonl"), [_job(1)], refused_hint="")
    assert pool.sent == []
