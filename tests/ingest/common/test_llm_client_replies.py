"""The LLM client's reading of a reply, each outcome compared in full: statuses, errors, shapes, what was sent.

Beside tests/ingest/common/test_llm_client.py (one guard per test), these pin the words and
numbers a record keeps: the reason of each failure, whether it was retried, what an answer
carries. The server is the local stand-in on 127.0.0.1 (tests/ingest/chat_stand_in.py).
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import pytest

from biaswh.ingest.common.llm.client import Answer, EndpointClient, EndpointRefused
from biaswh.ingest.common.llm.replies import AttemptFailed, _detail, _json_object, chat_reply
from biaswh.ingest.common.llm.settings import EndpointSettings
from biaswh.warehouse.errors import UserError
from tests.ingest.chat_stand_in import ChatStandIn

KEY_VARIABLE = "STAND_IN_TEST_KEY"
KEY = "hunter2-not-shaped-like-a-key"


def _settings(base_url: str, **changes) -> EndpointSettings:
    options = {"max_retries": 2, "backoff_seconds": 0.01, "timeout_seconds": 5.0, "api_key_env": KEY_VARIABLE}
    return EndpointSettings(base_url=base_url, **{**options, **changes})


def _chat(server: ChatStandIn, *, sampling: dict | None = None, **changes) -> Answer:
    with EndpointClient(_settings(server.base_url, **changes)) as client:
        return client.chat(model="asked-model", prompt="a question\nsecond line", sampling=sampling or {})


@pytest.mark.parametrize(
    ("status", "name"), [(401, "AuthenticationError"), (403, "PermissionDeniedError"), (404, "NotFoundError")]
)
def test_a_refusal_stops_at_the_first_request_naming_status_hint_and_detail_without_the_key(monkeypatch, status, name):
    monkeypatch.setenv(KEY_VARIABLE, KEY)
    with ChatStandIn(status_for_all=status, echo_key_in_error=True) as server:
        with pytest.raises(EndpointRefused) as refused:
            _chat(server)
    assert str(refused.value) == (
        f"the endpoint refused the request (HTTP {status} {name}): check the base URL, the model and"
        f" ${KEY_VARIABLE}: Incorrect API key provided: ***"
    )
    assert refused.value.status == status
    assert [r["authorization"] for r in server.requests] == [f"Bearer {KEY}"]  # sent once, with the key


def test_a_refusal_names_the_callers_hint_and_no_key_means_no_authorization_header(monkeypatch):
    monkeypatch.delenv(KEY_VARIABLE, raising=False)
    with ChatStandIn(status_for_all=401) as server:
        with EndpointClient(_settings(server.base_url), refused_hint="check --model") as client:
            with pytest.raises(EndpointRefused, match=r"^.*\(HTTP 401 AuthenticationError\): check --model: refused$"):
                client.chat(model="m", prompt="q", sampling={})
    assert server.requests[0]["authorization"] is None


def test_a_key_pasted_with_its_newline_is_sent_without_it_and_one_no_header_can_carry_is_refused(monkeypatch):
    monkeypatch.setenv(KEY_VARIABLE, f" {KEY}\n")
    with ChatStandIn() as server:
        assert _chat(server).ok
    assert server.requests[0]["authorization"] == f"Bearer {KEY}"
    for key in ("hunter\u00e42secret", "hunter2\nsecret", "hunter2\tsecret"):
        monkeypatch.setenv(KEY_VARIABLE, key)
        with pytest.raises(UserError) as refused:
            EndpointClient(_settings("http://127.0.0.1:9/v1"))
        assert str(refused.value) == (
            f"${KEY_VARIABLE} holds a character an HTTP header cannot carry (a control character or a non-ASCII"
            " letter); set it to the key alone"
        )


@pytest.mark.parametrize(
    ("status", "name", "attempts"),
    [
        (400, "BadRequestError", 1),
        (409, "ConflictError", 1),
        (418, "APIStatusError", 1),
        (422, "UnprocessableEntityError", 1),
        (429, "RateLimitError", 3),
        (499, "APIStatusError", 1),
        (500, "InternalServerError", 3),
        (503, "InternalServerError", 3),
    ],
)
def test_a_failing_status_is_recorded_by_name_and_only_429_and_5xx_are_retried(status, name, attempts):
    with ChatStandIn(status_for_all=status) as server:
        answer = _chat(server)
    assert answer.failure == f"HTTP {status} {name}: refused"
    assert answer.attempts == attempts == len(server.requests)
    assert (answer.content, answer.reasoning, answer.server_model) == ("", None, None)


def test_an_answer_carries_content_reasoning_the_served_model_and_its_timing():
    with ChatStandIn(served_model="served-7b", delay_seconds=0.2) as server:
        answer = _chat(server, sampling={"temperature": 0.25, "max_tokens": 7})
    assert answer.ok and answer.failure == "" and answer.attempts == 1
    assert answer.content == "**Most Likely Diagnosis:** answer to a question"
    assert answer.reasoning == "thinking about a question"
    assert answer.server_model == "served-7b"
    assert answer.base_url == server.base_url and 200 <= answer.latency_ms < 5_000
    body = server.requests[0]["body"]
    assert body == {
        "model": "asked-model",
        "messages": [{"role": "user", "content": "a question\nsecond line"}],
        "temperature": 0.25,
        "max_tokens": 7,
    }
    assert server.requests[0]["path"] == "/v1/chat/completions"
    assert answer.text_with_reasoning() == f"<think>\n{answer.reasoning}\n</think>\n{answer.content}"


def test_an_answers_latency_is_the_milliseconds_from_asking_to_its_reply(monkeypatch):
    # The client's clock reads 1000.0 s when the question is asked and 1002.5 s ever after.
    readings = iter([1000.0])
    clock = SimpleNamespace(monotonic=lambda: next(readings, 1002.5), sleep=time.sleep)
    monkeypatch.setattr("biaswh.ingest.common.llm.client.time", clock)
    with ChatStandIn() as server:
        answer = _chat(server)
    assert answer.ok and answer.latency_ms == 2500


def test_a_base_url_with_a_trailing_slash_reaches_the_same_path():
    with ChatStandIn() as server:
        with EndpointClient(_settings(server.base_url + "/")) as client:
            assert client.chat(model="m", prompt="q", sampling={}).ok
    assert server.requests[0]["path"] == "/v1/chat/completions"


def test_a_record_names_the_failure_the_served_model_and_the_timing_in_utc():
    answer = Answer("text", None, "served", 3, 1234, "", "http://127.0.0.1:1/v1")
    assert answer.ok and answer.text_with_reasoning() == "text"
    fields = answer.record_fields()
    stamp = datetime.fromisoformat(fields.pop("timestamp"))
    assert stamp.utcoffset() == timedelta(0) and abs(datetime.now(timezone.utc) - stamp) < timedelta(minutes=1)
    assert fields == {
        "error_message": "",
        "server_model": "served",
        "meta": {"latency_ms": 1234, "attempts": 3, "base_url": "http://127.0.0.1:1/v1"},
    }
    assert not Answer("", None, None, 1, 0, "HTTP 500", "u").ok


def test_a_server_that_is_not_there_is_a_retried_connection_failure():
    # Port 9 (discard) on this machine: nothing listens, the connection is refused at once.
    with EndpointClient(_settings("http://127.0.0.1:9/v1")) as client:
        answer = client.chat(model="m", prompt="q", sampling={})
    assert answer.attempts == 3 and answer.failure.startswith("APIConnectionError: ConnectError: ")


def test_a_redirect_is_refused_in_one_line_naming_where_it_points():
    with ChatStandIn(redirect_to="http://user:sk-secret@127.0.0.1:1/v1") as server:
        answer = _chat(server)
    assert answer.failure == (
        "HTTP 307: the endpoint redirects to http://127.0.0.1:1/v1/chat/completions; redirects are not followed"
        " (give that address as the base URL if you trust it)"
    )


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        (b'{"error": {"message": "no  such\\n model", "type": "x"}}', "no such model"),
        (b'{"error": "quota spent"}', "quota spent"),
        (b'{"error": {"type": "x"}}', "{'type': 'x'}"),
        (b"[1, 2]", "[1, 2]"),  # JSON, but nothing to look up in
        (b"<html>\n  <h1>502</h1>\n</html>", "<html> <h1>502</h1> </html>"),
        (b"bad \xff byte", "bad \ufffd byte"),
        (b"x" * 300, "x" * 200),
        (b"y " * 3000, " ".join(["y"] * 2000)),
    ],
)
def test_an_error_body_becomes_one_short_line(body, detail):
    assert _detail(body) == detail[:200]


def test_an_error_body_is_read_only_in_its_first_4000_bytes():
    message = b'{"error": {"message": "' + b"m" * 3990 + b'"}}'
    assert len(message) > 4000 and _detail(message) == message[:200].decode()


NOT_JSON = "the reply is not JSON (Expecting value); it starts"
HTML = "the reply is HTML, not JSON (Expecting value); it starts"
NO_NAME = "the reply is not JSON (Expecting property name enclosed in double quotes); it starts"


@pytest.mark.parametrize(
    ("body", "content_type", "reason"),
    [
        (b"\xff\xfe{}", "application/json", "the reply is not UTF-8 text"),
        (b"upstream said: fine", "text/plain", f"{NOT_JSON} 'upstream said: fine'"),
        (b"oops", "TEXT/HTML; charset=utf-8", f"{HTML} 'oops'"),
        (b"  <p>\n proxy</p>", "application/json", f"{HTML} '<p> proxy</p>'"),
        (b"{" + b"a" * 100, "", f"{NO_NAME} '{{{'a' * 59}'"),
        (b"[1]", "application/json", "the reply is JSON but not an object (a list)"),
        (b'"text"', "application/json", "the reply is JSON but not an object (a str)"),
    ],
)
def test_a_reply_that_is_not_a_json_object_fails_with_its_reason_and_is_not_retried(body, content_type, reason):
    with pytest.raises(AttemptFailed) as failed:
        _json_object(body, content_type)
    assert failed.value.reason == reason and failed.value.retryable is False


def test_nesting_at_the_limit_is_read_and_one_deeper_is_refused_for_good():
    # 64 levels deep with more than 64 brackets in all: the depth is counted, and it is not too deep
    at_limit = b'{"a": ' + b"[" * 63 + b"]" * 63 + b', "b": []}'
    assert _json_object(at_limit, "") == {"a": _nested(63), "b": []}
    with pytest.raises(AttemptFailed) as failed:
        _json_object(b'{"a": ' + b"[" * 64 + b"]" * 64 + b"}", "")
    assert failed.value.reason == "the reply's JSON nests deeper than 64 levels" and failed.value.retryable is False


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth - 1):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ({"choices": {}}, "the reply has no 'choices' list (not a chat completion)"),
        ({}, "the reply has no 'choices' list (not a chat completion)"),
        ({"choices": []}, "the reply's 'choices' is empty"),
        ({"choices": ["text"]}, "the reply has no choices[0].message object"),
        ({"choices": [{"message": "text"}]}, "the reply has no choices[0].message object"),
        ({"choices": [{"message": {}}]}, "the reply's choices[0].message.content is null, not text"),
        ({"choices": [{"message": {"content": ""}}]}, "the reply's choices[0].message.content is empty, not text"),
        ({"choices": [{"message": {"content": 5}}]}, "the reply's choices[0].message.content is int, not text"),
        ({"choices": [{"message": {"content": ["a"]}}]}, "the reply's choices[0].message.content is list, not text"),
    ],
)
def test_a_json_object_that_is_not_a_chat_completion_fails_with_its_reason(data, reason):
    with pytest.raises(AttemptFailed) as failed:
        chat_reply(data)
    assert failed.value.reason == reason and failed.value.retryable is False


@pytest.mark.parametrize(
    ("message", "model", "expected"),
    [
        ({"content": " a ", "reasoning_content": "why"}, "m", (" a ", "why", "m")),
        ({"content": "a", "reasoning_content": ""}, "m", ("a", None, "m")),
        ({"content": "a", "reasoning_content": 7}, 7, ("a", None, None)),
        ({"content": "a"}, None, ("a", None, None)),
    ],
)
def test_a_chat_completion_gives_its_content_and_only_textual_reasoning_and_model(message, model, expected):
    data = {"choices": [{"message": message}, {"message": {"content": "second"}}]}
    if model is not None:
        data["model"] = model
    assert chat_reply(data) == expected
