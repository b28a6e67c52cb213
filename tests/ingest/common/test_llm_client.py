"""The LLM client's distrust, one guard per test: each fails when its guard is removed.

Checked by hand (each mutation applied to ingest/common/llm/client.py, this module run, the
mutation reverted): the streamed byte count's cap, the empty-answer check, the retry on 429,
the refusal to follow a redirect, and the nesting-depth check.
"""

from __future__ import annotations

import pytest

from ingest.common.llm.client import MAX_REPLY_DEPTH, EndpointClient, nesting_depth
from ingest.common.llm.settings import EndpointSettings
from tests.ingest.chat_stand_in import ChatStandIn

CAP = 50_000


def _chat(server: ChatStandIn, **settings):
    options = {"max_retries": 2, "backoff_seconds": 0.01, "timeout_seconds": 5.0, "max_reply_bytes": CAP}
    with EndpointClient(EndpointSettings(base_url=server.base_url, **{**options, **settings})) as client:
        return client.chat(model="m", prompt="a question", sampling={})


def test_a_reply_without_its_size_is_cut_at_the_cap_while_it_streams():
    with ChatStandIn(misbehave="huge_unsized", huge_bytes=20 * CAP) as server:
        answer = _chat(server)
    assert not answer.ok and f"larger than {CAP:,} bytes" in answer.failure
    assert answer.attempts == 1  # a reply too large is not asked again


def test_a_blank_answer_is_a_failure_not_an_answer():
    with ChatStandIn(misbehave="blank_content") as server:
        answer = _chat(server)
    assert not answer.ok and answer.content == "" and "content is empty, not text" in answer.failure


def test_a_429_is_retried_until_an_answer():
    with ChatStandIn(failures={"": [429, 429]}) as server:
        answer = _chat(server)
    assert answer.ok and answer.attempts == 3 and len(server.requests) == 3


def test_a_redirect_to_another_server_is_not_followed():
    with ChatStandIn() as elsewhere, ChatStandIn(redirect_to=elsewhere.base_url) as server:
        answer = _chat(server)
    assert not answer.ok and "redirects are not followed" in answer.failure
    assert elsewhere.base_url.removesuffix("/v1") in answer.failure
    assert elsewhere.requests == [] and answer.attempts == 1


def test_a_deeply_nested_reply_fails_in_one_line():
    with ChatStandIn(misbehave="nested") as server:
        answer = _chat(server, max_reply_bytes=1_000_000)
    assert not answer.ok and f"nests deeper than {MAX_REPLY_DEPTH} levels" in answer.failure


@pytest.mark.parametrize(
    ("text", "depth"),
    [(b'"x"', 0), (b"[]", 1), (b'{"a": [1, {"b": "[[[[\\"[["}]}', 3), (b"[" * 70 + b"]" * 70, 70)],
)
def test_nesting_depth_ignores_brackets_inside_strings(text, depth):
    assert nesting_depth(text) == depth


def test_a_drip_past_the_deadline_has_one_reason_whichever_thread_sees_it():
    with ChatStandIn(misbehave="drip", drip_seconds=0.05) as server:
        answers = [_chat(server, timeout_seconds=0.3, max_retries=0) for _ in range(3)]
    assert {answer.failure for answer in answers} == {"no complete reply within the 0.3 s deadline"}
