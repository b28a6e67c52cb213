"""The LLM client's distrust, one guard per test: each fails when its guard is removed.

Checked by hand (each mutation applied to ingest/common/llm/client.py, this module run, the
mutation reverted): the streamed byte count's cap, the empty-answer check, the retry on 429,
the refusal to follow a redirect, and the nesting-depth check.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
import types
from urllib.parse import quote, quote_plus

import pytest

from biaswh.ingest.common.llm.client import EndpointClient
from biaswh.ingest.common.llm.replies import MAX_REPLY_DEPTH, nesting_depth
from biaswh.ingest.common.llm.settings import EndpointSettings, public_url, redact
from biaswh.warehouse.errors import UserError
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


@pytest.mark.parametrize(
    ("seconds_after", "failure"), [(0.0, ""), (0.001, "no complete reply within the 5 s deadline")]
)
def test_the_thread_reading_a_reply_holds_the_deadline_itself(monkeypatch, seconds_after, failure):
    # The client's clock reads 1000 s when the question is asked and when the deadline is set, then
    # ``seconds_after`` past the deadline: the waiting thread, on the real clock, has not woken yet.
    readings = iter([1000.0, 1000.0])
    clock = types.SimpleNamespace(monotonic=lambda: next(readings, 1005.0 + seconds_after), sleep=time.sleep)
    monkeypatch.setattr("biaswh.ingest.common.llm.client.time", clock)
    with ChatStandIn() as server:
        answer = _chat(server, max_retries=0)
    assert answer.failure == failure and answer.ok == (not failure)


def test_headers_dripped_one_byte_at_a_time_are_cut_at_the_deadline():
    """No single read waits past the read timeout, so only the waiting thread's deadline ends this."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        stop = threading.Event()

        def drip_headers() -> None:
            connection, _ = listener.accept()
            with connection:
                connection.recv(65536)
                for byte in b"HTTP/1.1 200 OK\r\nX-Padding: " + b"x" * 200:
                    if stop.is_set():
                        return
                    try:
                        connection.sendall(bytes([byte]))
                    except OSError:  # the client gave up
                        return
                    time.sleep(0.05)

        server = threading.Thread(target=drip_headers, daemon=True)
        server.start()
        base_url = f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
        started = time.monotonic()
        with EndpointClient(EndpointSettings(base_url=base_url, timeout_seconds=0.5, max_retries=0)) as client:
            answer = client.chat(model="m", prompt="q", sampling={})
        elapsed = time.monotonic() - started
        stop.set()
    assert answer.failure == "no complete reply within the 0.5 s deadline" and answer.attempts == 1
    assert elapsed < 5  # the headers alone would take 10 s


class HeaderDripper:
    """Sends every connection on 127.0.0.1 a status line and then header bytes one every 50 ms, for 20 s."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.dripped_all = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}/v1"

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:  # closed
                return
            threading.Thread(target=self._drip, args=(connection,), daemon=True).start()

    def _drip(self, connection: socket.socket) -> None:
        with connection:
            connection.recv(65536)
            for byte in b"HTTP/1.1 200 OK\r\nX-Padding: " + b"x" * 400:
                try:
                    connection.sendall(bytes([byte]))
                except OSError:  # the client let go
                    return
                time.sleep(0.05)
        self.dripped_all.set()


UNCLOSED_CLIENT = """
import sys
from biaswh.ingest.common.llm.client import EndpointClient
from biaswh.ingest.common.llm.settings import EndpointSettings
client = EndpointClient(EndpointSettings(base_url=sys.argv[1], timeout_seconds=0.5, max_retries=0))
print(client.chat(model="m", prompt="q", sampling={}).failure)
"""


def test_an_attempt_abandoned_on_a_client_never_closed_does_not_hold_the_process_open():
    # The embeddings provider keeps its client open to the end, and a server dripping headers keeps
    # the abandoned attempt reading (each byte comes within the read timeout): Python must exit anyway.
    server = HeaderDripper()
    before = set(threading.enumerate())
    client = EndpointClient(EndpointSettings(base_url=server.base_url, timeout_seconds=0.5, max_retries=0))
    try:
        answer = client.chat(model="m", prompt="q", sampling={})
        left_reading = [thread for thread in threading.enumerate() if thread not in before and thread.is_alive()]
        assert answer.failure == "no complete reply within the 0.5 s deadline"
        assert left_reading and all(thread.daemon for thread in left_reading)  # not waited for at exit
        command = [sys.executable, "-c", UNCLOSED_CLIENT, server.base_url]
        finished = subprocess.run(command, capture_output=True, text=True, timeout=60)
        assert (finished.returncode, finished.stdout) == (0, "no complete reply within the 0.5 s deadline\n")
        assert not server.dripped_all.is_set()  # it exited while the server was still dripping
    finally:
        client.close()
        server.listener.close()


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        # an infinite or huge deadline passed "finite" checks and died in threading (OverflowError)
        ("timeout_seconds", float("inf"), "timeout_seconds (--timeout) must be a number in (0, 86400]"),
        ("timeout_seconds", 1e300, "timeout_seconds (--timeout) must be a number in (0, 86400], not 1e+300"),
        ("timeout_seconds", 0, "timeout_seconds (--timeout) must be a number in (0, 86400], not 0"),
        ("concurrency", 0, "concurrency (--concurrency) must be an integer in [1, 256], not 0"),
        ("max_retries", -1, "max_retries (--max-retries) must be an integer in [0, 100], not -1"),
        ("backoff_seconds", float("nan"), "backoff_seconds (--backoff) must be a number in [0, 3600], not nan"),
        ("max_reply_bytes", 0, "max_reply_bytes (--max-reply-bytes) must be an integer >= 1, not 0"),
        ("base_url", "ftp://127.0.0.1/v1", "base_url (--base-url) must be an http:// or https:// URL"),
    ],
)
def test_settings_built_from_python_refuse_what_the_cli_refuses(field, value, message):
    with pytest.raises(UserError) as refused:
        EndpointSettings(**{"base_url": "http://127.0.0.1:9/v1", field: value})
    assert str(refused.value).startswith(message)


def test_settings_at_the_edges_of_their_ranges_are_accepted():
    settings = EndpointSettings(
        base_url="https://example.org/v1", timeout_seconds=86_400, concurrency=256, max_retries=0, backoff_seconds=0
    )
    assert settings.timeout_seconds == 86_400 and settings.concurrency == 256


def test_a_recorded_reason_shows_neither_the_key_nor_anything_shaped_like_one():
    key = "hunter2-secret-key"
    assert redact(f"401: bad key {key} ({key})", key) == "401: bad key *** (***)"
    assert redact("the body echoed sk-AbC_12-*x and sk-xy", None) == "the body echoed sk-*** and sk-xy"
    assert redact("sk-abcd1234 is here", "") == "sk-*** is here"


def test_a_key_is_redacted_in_every_spelling_a_recorded_error_can_hold():
    key = "k\\e\"y's/ x"  # printable ASCII, so a header carries it; lower case, for the lower-case hex
    in_json = json.dumps(key)[1:-1]
    spellings = {
        "as sent": key,
        "JSON": in_json,
        "JSON, slash escaped": in_json.replace("/", "\\/"),
        "repr": repr(key)[1:-1],
        "repr of JSON": repr(in_json)[1:-1],
        "repr of JSON, slash escaped": repr(in_json.replace("/", "\\/"))[1:-1],
        "URL path": quote(key),
        "URL component": quote(key, safe=""),
        "URL component, lower-case hex": quote(key, safe="").lower(),  # the key's own letters are lower case
        "form value": quote_plus(key),
    }
    assert len(set(spellings.values())) == len(spellings)
    for spelling in spellings.values():
        assert redact(f"<{spelling}>", key) == "<***>", spelling
    # Without a double quote, a repr of JSON text holding it can be in double quotes ("'" kept);
    # and a key ending in a backslash is the start of its JSON spelling, which must go whole.
    key = "e'y\\"
    for spelling in (key, json.dumps(key)[1:-1], repr(json.dumps(key)[1:-1])[1:-1]):
        assert redact(f"<{spelling}>", key) == "<***>", spelling


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://user:sk-secret@api.example.org:8443/v1?key=sk-other#frag", "https://api.example.org:8443/v1"),
        ("http://127.0.0.1/v1/", "http://127.0.0.1/v1/"),
        ("http://LOCALHOST:80/v1", "http://localhost:80/v1"),
        ("http://user:sk-secret@/v1", "http:///v1"),  # no host: none made up, the user info still dropped
    ],
)
def test_the_url_a_record_names_drops_user_info_query_and_fragment(url, shown):
    assert public_url(url) == shown
