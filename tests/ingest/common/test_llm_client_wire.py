"""The LLM client against exact bytes on the wire: a raw socket on 127.0.0.1 sends one canned HTTP reply.

The stand-in server (tests/ingest/chat_stand_in.py) cannot send a reply of an exact size, a
redirect without a ``Location``, or nothing at all; this one can. Beside them, the waits between
retries, recorded from the client's clock, and the nesting check's cheap first count.
"""

from __future__ import annotations

import json
import random
import socket
import threading
import time
import types
from collections.abc import Callable
from urllib.parse import quote

import httpx2
import pytest

import biaswh.ingest.common.llm.client as client_module
from biaswh.ingest.common.llm.client import EndpointClient
from biaswh.ingest.common.llm.replies import AttemptFailed, _detail, _json_object
from biaswh.ingest.common.llm.settings import EndpointSettings
from tests.ingest.chat_stand_in import ChatStandIn

CAP = 1_000


class CannedServer:
    """Answers every connection on 127.0.0.1 with ``reply`` (raw bytes, or made from the request's bytes by a
    function), then closes it; None: sends nothing."""

    def __init__(self, reply: bytes | Callable[[bytes], bytes] | None) -> None:
        self.reply = reply
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.2)
        self.stop = threading.Event()
        self.released = threading.Event()  # the client closed a connection this server left silent
        self.thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}/v1"

    def __enter__(self) -> CannedServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join()
        self.listener.close()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                connection, _ = self.listener.accept()
            except TimeoutError:
                continue
            with connection:
                request = connection.recv(65536)
                if self.reply is not None:
                    connection.sendall(self.reply(request) if callable(self.reply) else self.reply)
                    self._drain(connection)
                    continue
                connection.settimeout(0.1)
                while not self.stop.is_set():
                    try:
                        if connection.recv(1) == b"":
                            self.released.set()
                            break
                    except TimeoutError:
                        continue
                    except OSError:
                        self.released.set()
                        break

    @staticmethod
    def _drain(connection: socket.socket) -> None:
        """End the reply, then read what is left of the request: closing with unread bytes sends a
        reset, which the client may see before the reply's last bytes (a flaky unsized reply)."""
        connection.shutdown(socket.SHUT_WR)
        connection.settimeout(2)
        try:
            while connection.recv(65536):
                pass
        except OSError:
            pass


def _response(status: str, body: bytes, *headers: str, sized: bool = True) -> bytes:
    lines = [f"HTTP/1.1 {status}", *headers, "Connection: close"]
    if sized:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def _completion(size: int) -> bytes:
    """A chat completion of exactly ``size`` bytes."""
    shell = b'{"choices": [{"message": {"content": "%s"}}]}'
    return shell % (b"a" * (size - len(shell) + 2))


def _chat(base_url: str, **changes):
    options = {"max_retries": 0, "backoff_seconds": 0.01, "timeout_seconds": 5.0, "max_reply_bytes": CAP}
    with EndpointClient(EndpointSettings(base_url=base_url, **{**options, **changes})) as client:
        return client.chat(model="m", prompt="q", sampling={})


@pytest.mark.parametrize("sized", [True, False])
def test_a_reply_of_exactly_the_cap_is_read_and_one_byte_more_is_refused(sized):
    with CannedServer(_response("200 OK", _completion(CAP), sized=sized)) as server:
        assert _chat(server.base_url).ok
    with CannedServer(_response("200 OK", _completion(CAP + 1), sized=sized)) as server:
        answer = _chat(server.base_url)
    assert answer.failure == f"the reply is larger than {CAP:,} bytes (--max-reply-bytes)"


def test_an_answer_longer_than_one_read_is_read_whole():
    with ChatStandIn(misbehave="huge", huge_bytes=300_000) as server:
        answer = _chat(server.base_url, max_reply_bytes=1_000_000)
    assert answer.ok and answer.content == "What" + " y'all" * 50_000 + "?"


def test_the_request_goes_under_the_base_urls_path_whatever_its_last_letter():
    with ChatStandIn() as server:
        assert _chat(server.base_url.removesuffix("/v1") + "/X/").ok
    assert server.requests[0]["path"] == "/X/chat/completions"


def test_a_declared_size_over_the_cap_is_refused_before_the_body_is_read():
    # The body never comes (the connection closes after the headers): only the declared length tells.
    with CannedServer(b"HTTP/1.1 200 OK\r\nContent-Length: 1001\r\n\r\n") as server:
        answer = _chat(server.base_url)
    assert answer.failure == f"the reply is larger than {CAP:,} bytes (--max-reply-bytes)"


def test_a_reply_the_server_calls_html_is_named_so_whatever_its_first_character():
    with CannedServer(_response("200 OK", b"Bad gateway", "Content-Type: text/html")) as server:
        answer = _chat(server.base_url)
    assert answer.failure == "the reply is HTML, not JSON (Expecting value); it starts 'Bad gateway'"


@pytest.mark.parametrize(
    ("status", "failure"),
    [
        ("300 Multiple Choices", "HTTP 300: the endpoint redirects to nowhere; redirects are not followed"),
        ("399 Odd", "HTTP 399: the endpoint redirects to nowhere; redirects are not followed"),
        ("299 Odd", "the reply is not JSON (Expecting value); it starts ''"),
    ],
)
def test_a_3xx_without_a_location_is_a_redirect_to_nowhere(status, failure):
    with CannedServer(_response(status, b"")) as server:
        answer = _chat(server.base_url, max_retries=2)
    assert answer.failure.startswith(failure) and answer.attempts == 1


def test_a_key_the_server_echoes_in_a_header_line_it_breaks_is_not_recorded(monkeypatch):
    # The HTTP parser quotes a header line it cannot read in its error, and the error is recorded with the answer.
    monkeypatch.setenv("BIASWH_TEST_WIRE_KEY", "hunter2-not-shaped-like-a-key")

    def echo_the_key(request: bytes) -> bytes:
        sent = next(line for line in request.split(b"\r\n") if line.lower().startswith(b"authorization:"))
        return b"HTTP/1.1 200 OK\r\nX-Echo " + sent.partition(b":")[2].strip() + b"\r\n\r\n"

    with CannedServer(echo_the_key) as server:
        answer = _chat(server.base_url, api_key_env="BIASWH_TEST_WIRE_KEY")
    assert (
        answer.failure
        == "APIConnectionError: RemoteProtocolError: illegal header line: bytearray(b'X-Echo Bearer ***')"
    )


# Printable ASCII, so a header carries it; each way of quoting text spells it differently.
ODD_KEY = "k3y\\with\"quote's/slash"
_JSON_KEY = json.dumps(ODD_KEY)[1:-1]


@pytest.mark.parametrize(
    ("reply", "recorded"),
    [
        pytest.param(  # the HTTP parser quotes the line it cannot read: a Python repr
            lambda key: b"HTTP/1.1 200 OK\r\nX-Echo Bearer " + key.encode() + b"\r\n\r\n",
            "APIConnectionError: RemoteProtocolError: illegal header line: bytearray(b'X-Echo Bearer ***')",
            id="repr",
        ),
        pytest.param(  # an error body that is not JSON is recorded as sent: JSON-escaped
            lambda key: _response("500 Oops", b'{"error": "key \\"' + _JSON_KEY.encode() + b'\\" refused"'),
            'HTTP 500 InternalServerError: {"error": "key \\"***\\" refused"',
            id="json",
        ),
        pytest.param(  # some servers also escape the slash
            lambda key: _response("500 Oops", b'{"error": "' + _JSON_KEY.replace("/", "\\/").encode() + b'"'),
            'HTTP 500 InternalServerError: {"error": "***"',
            id="json-slash",
        ),
        pytest.param(  # a reply that is not JSON is quoted by its first characters: a repr of JSON text
            lambda key: _response("200 OK", b'<p data-key="' + _JSON_KEY.encode() + b'">'),
            "the reply is HTML, not JSON (Expecting value); it starts '<p data-key=\"***\">'",
            id="repr-of-json",
        ),
        pytest.param(  # an error message cut to 200 characters: the cut would halve a key past 190
            lambda key: _response("500 Oops", b'{"error": {"message": "' + b"x" * 190 + _JSON_KEY.encode() + b'"}}'),
            "HTTP 500 InternalServerError: " + "x" * 190 + "***",
            id="cut-detail",
        ),
        pytest.param(  # a message JSON spells with \u escapes is found once decoded
            lambda key: _response(
                "500 Oops", json.dumps({"error": {"message": key}}, ensure_ascii=False).replace("k", "\\u006b").encode()
            ),  # fmt: skip
            "HTTP 500 InternalServerError: ***",
            id="json-unicode-escaped",
        ),
        pytest.param(  # a reply that is not JSON is quoted by its first 60 characters, which would halve it
            lambda key: _response("200 OK", b"!" * 50 + key.encode()),
            "the reply is not JSON (Expecting value); it starts '" + "!" * 50 + "***'",
            id="cut-start",
        ),
        pytest.param(  # a redirect's address is named (without its query): the key as it is
            lambda key: _response("302 Found", b"", "Location: http://127.0.0.1:9/took/" + key),
            "HTTP 302: the endpoint redirects to http://127.0.0.1:9/took/***; redirects are not followed",
            id="raw",
        ),
        pytest.param(  # or percent-encoded
            lambda key: _response("302 Found", b"", "Location: http://127.0.0.1:9/took/" + quote(key, safe="")),
            "HTTP 302: the endpoint redirects to http://127.0.0.1:9/took/***; redirects are not followed",
            id="url-encoded",
        ),
    ],
)
def test_a_key_the_server_echoes_is_recorded_in_no_spelling(monkeypatch, reply, recorded):
    monkeypatch.setenv("BIASWH_TEST_WIRE_KEY", ODD_KEY)
    with CannedServer(lambda request: reply(ODD_KEY)) as server:
        answer = _chat(server.base_url, api_key_env="BIASWH_TEST_WIRE_KEY")
    assert answer.failure.startswith(recorded)
    assert "k3y" not in answer.failure and "slash" not in answer.failure


def test_an_abandoned_attempt_lets_go_of_its_connection_at_its_read_timeout():
    with CannedServer(None) as server:
        with EndpointClient(EndpointSettings(base_url=server.base_url, timeout_seconds=0.5, max_retries=0)) as client:
            answer = client.chat(model="m", prompt="q", sampling={})
            assert answer.failure == "no complete reply within the 0.5 s deadline"
            # the client is still open: only the attempt's own read timeout can close the connection
            assert server.released.wait(3)  # its read timeout is 0.5 s; httpx's default would be 5 s


def test_a_connection_the_kernel_gives_up_on_before_the_deadline_is_a_timeout_and_retried(monkeypatch):
    # A peer that takes no more bytes: the kernel ends the connection with ETIMEDOUT, here after
    # TCP_USER_TIMEOUT (0.2 s), on a real network after its own retries (about 2 minutes for a lost
    # SYN, 15 for lost data), well within a deadline of up to a day; httpx calls that a timeout.
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)  # its connections are never accepted, their bytes never read
    real_client = httpx2.Client
    give_up = httpx2.HTTPTransport(socket_options=[(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, 200)])
    monkeypatch.setattr(httpx2, "Client", lambda **options: real_client(transport=give_up, **options))
    settings = EndpointSettings(base_url=f"http://127.0.0.1:{listener.getsockname()[1]}/v1", max_retries=1,
                                backoff_seconds=0.01, timeout_seconds=30)  # fmt: skip
    with listener, EndpointClient(settings) as client:
        answer = client.chat(model="m", prompt="a" * 16_000_000, sampling={})  # more than the socket buffers hold
    assert answer.failure == "APITimeoutError: WriteTimeout" and answer.attempts == 2


def test_a_reply_past_its_deadline_is_asked_again():
    with ChatStandIn(misbehave="drip", drip_seconds=0.05) as server:
        answer = _chat(server.base_url, timeout_seconds=0.3, max_retries=1)
    assert answer.failure == "no complete reply within the 0.3 s deadline" and answer.attempts == 2
    assert len(server.requests) == 2


def test_the_waits_between_retries_double_from_the_backoff(monkeypatch):
    waits = []
    clock = types.SimpleNamespace(monotonic=time.monotonic, sleep=waits.append)
    monkeypatch.setattr(client_module, "time", clock)
    with CannedServer(_response("500 Internal Server Error", b"down")) as server:
        answer = _chat(server.base_url, max_retries=3, backoff_seconds=0.25)
    assert answer.failure == "HTTP 500 InternalServerError: down" and answer.attempts == 4
    assert waits == [0.25, 0.5, 1.0]


def test_a_jittered_wait_is_the_doubled_backoff_scaled_by_a_seeded_factor_in_half_to_one():
    draws = random.Random(3)
    expected = [0.25 * 2**attempt * (0.5 + draws.random() / 2) for attempt in range(4)]
    settings = EndpointSettings(base_url="http://127.0.0.1:9/v1", backoff_seconds=0.25, jitter_seed=3)
    with EndpointClient(settings) as client:
        assert [client.backoff(attempt) for attempt in range(4)] == expected


def test_many_flat_brackets_are_not_deep_nesting():
    body = b'{"a": [' + b"[], " * 100 + b"[]]}"
    assert _json_object(body, "application/json") == {"a": [[]] * 101}


def test_an_error_body_is_read_as_json_within_its_first_4000_bytes_only():
    def error_body(size: int) -> bytes:
        return b'{"error": "' + b"m" * (size - 13) + b'"}'

    assert len(error_body(4000)) == 4000 and _detail(error_body(4000)) == "m" * 200
    assert _detail(error_body(4001)) == error_body(4001)[:200].decode()


def test_an_attempt_failure_is_one_attempt_until_counted():
    failure = AttemptFailed("why", retryable=True)
    assert (failure.reason, failure.retryable, failure.attempts, str(failure)) == ("why", True, 1, "why")
