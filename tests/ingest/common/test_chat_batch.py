"""The chat batch: its resumable JSONL cache read line by line, and the pool that sends, counts and stops.

The server is the local stand-in on 127.0.0.1 (tests/ingest/chat_stand_in.py), never the network.
"""

from __future__ import annotations

import json
import locale
import sys

import pytest

from biaswh.ingest.common.llm.batch import ChatJob, JsonlCache, answer_all, chat_pool_for_calls
from biaswh.ingest.common.llm.client import EndpointFailed, EndpointRefused
from biaswh.ingest.common.llm.settings import EndpointSettings
from biaswh.warehouse.errors import UserError
from tests.ingest.chat_stand_in import ChatStandIn


def _lines(*records) -> str:
    return "".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in records)


def test_the_cache_keeps_the_latest_record_per_key_and_skips_blank_lines(tmp_path):
    path = tmp_path / "answers.jsonl"
    assert JsonlCache(path).read() == {}  # no file yet: nothing cached
    path.write_text(_lines({"id": "a", "n": 1}, "  ", {"id": "b", "n": 2}, {"id": "a", "n": 3}), encoding="utf-8")
    assert JsonlCache(path).read() == {"a": {"id": "a", "n": 3}, "b": {"id": "b", "n": 2}}
    by_name = JsonlCache(path, key_field="n")
    path.write_text(_lines({"n": "x", "v": 1}, {"n": "x", "v": 2}), encoding="utf-8")
    assert by_name.read() == {"x": {"n": "x", "v": 2}}


@pytest.mark.parametrize(
    ("bad_line", "problem"),
    [
        ('{"id": "b", "te', "not JSON (Unterminated string starting at at column 13)"),
        ("nonsense", "not JSON (Expecting value at column 1)"),
        ('["id", "b"]', "not a record with a text 'id'"),
        ('{"id": 7}', "not a record with a text 'id'"),
        ('{"key": "b"}', "not a record with a text 'id'"),
    ],
)
def test_a_corrupt_line_in_the_middle_or_at_a_finished_end_stops_with_its_file_and_line(tmp_path, bad_line, problem):
    path = tmp_path / "answers.jsonl"
    for text, number in ((_lines({"id": "a"}, bad_line, {"id": "c"}), 2), (_lines({"id": "a"}, bad_line), 2)):
        path.write_text(text, encoding="utf-8")
        with pytest.raises(UserError) as refused:
            JsonlCache(path).read()
        assert str(refused.value) == f"{path}, line {number}: corrupt cache line, {problem}; fix or delete that line"
        assert path.read_text(encoding="utf-8") == text  # never rewritten


def test_a_last_line_cut_short_is_removed_and_reported(tmp_path, capsys):
    path = tmp_path / "answers.jsonl"
    path.write_text(_lines({"id": "a"}, {"id": "b"}) + '{"id": "c", "te', encoding="utf-8")
    assert set(JsonlCache(path).read()) == {"a", "b"}
    assert path.read_text(encoding="utf-8") == _lines({"id": "a"}, {"id": "b"})
    assert capsys.readouterr().err == (
        f"biaswh: warning: {path}, line 3: cut short (not JSON (Unterminated string starting at at column 13));"
        " sent again\n"
    )
    path.write_text('{"id": 5}', encoding="utf-8")  # the only line, cut short
    assert JsonlCache(path).read() == {} and path.read_text(encoding="utf-8") == ""


def test_the_cache_appends_text_as_written_and_compacts_in_the_given_order(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    cache = JsonlCache("~/answers.jsonl")
    assert cache.path == tmp_path / "answers.jsonl"
    for record in ({"id": "z", "t": "é"}, {"id": "b", "t": 1}, {"id": "a", "t": 2}, {"id": "b", "t": 3}):
        cache.append(record)
    assert cache.path.read_text(encoding="utf-8").splitlines()[0] == '{"id": "z", "t": "é"}'
    cache.compact(["b", "missing"])
    assert cache.path.read_text(encoding="utf-8") == _lines(
        {"id": "b", "t": 3}, {"id": "a", "t": 2}, {"id": "z", "t": "é"}
    )


@pytest.fixture
def ascii_locale():
    """The C locale, whose default text encoding is ASCII (a container or server without a UTF-8 locale)."""
    if sys.flags.utf8_mode:
        pytest.skip("Python's UTF-8 mode makes every default text encoding UTF-8, whatever the locale")
    saved = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        yield
    finally:
        locale.setlocale(locale.LC_CTYPE, saved)


def test_the_cache_is_written_and_read_as_utf_8_whatever_the_locale(tmp_path, ascii_locale):
    path = tmp_path / "answers.jsonl"
    assert locale.getencoding() == "ANSI_X3.4-1968"  # what a file opened without an encoding would use
    JsonlCache(path).append({"id": "q1", "t": "naïve — 日本"})
    assert path.read_bytes() == '{"id": "q1", "t": "naïve — 日本"}\n'.encode()
    path.write_bytes('{"id": "q2", "t": "café"}\n'.encode())
    assert JsonlCache(path).read() == {"q2": {"id": "q2", "t": "café"}}


def _settings(server: ChatStandIn, **changes) -> EndpointSettings:
    options = {"max_retries": 2, "backoff_seconds": 0.01, "timeout_seconds": 5.0, "api_key_env": "NO_SUCH_KEY_SET"}
    return EndpointSettings(base_url=server.base_url, **{**options, **changes})


def _job(n: int) -> ChatJob:
    return ChatJob(
        "m", f"question {n}", {"seed": n}, lambda answer, n=n: {"id": f"q{n}", "ok": answer.ok, "a": answer.content}
    )


def test_a_batch_sends_each_job_at_most_concurrency_at_once_and_counts_failures_and_retries(tmp_path):
    cache = JsonlCache(tmp_path / "answers.jsonl")
    failures = {"question 1": [500], "question 2": ["html", "html", "html"]}
    with ChatStandIn(failures=failures, delay_seconds=0.1) as server:
        result = answer_all(_settings(server, concurrency=2), cache, [_job(n) for n in range(5)], refused_hint="")
    assert (result.n_sent, result.n_failed, result.n_retries) == (5, 1, 1)
    assert sorted(r["id"] for r in result.records) == [f"q{n}" for n in range(5)]
    assert [r["id"] for r in result.records if not r["ok"]] == ["q2"]
    assert 1 < server.max_in_flight <= 2 and len(server.requests) == 6
    assert {r["body"]["seed"] for r in server.requests} == set(range(5))
    assert {r["body"]["model"] for r in server.requests} == {"m"}
    assert sorted(cache.read()) == [f"q{n}" for n in range(5)]


def test_a_batch_compacts_its_cache_in_order_and_fails_when_every_request_failed(tmp_path):
    cache = JsonlCache(tmp_path / "answers.jsonl")
    cache.append({"id": "q1", "ok": False, "a": "an old failure"})
    with ChatStandIn(misbehave="html") as server:
        with pytest.raises(EndpointFailed) as failed:
            answer_all(_settings(server), cache, [_job(1), _job(0)], refused_hint="", order=["q1", "q0"])
    assert str(failed.value) == (
        f"every one of the 2 request(s) failed, recorded in {cache.path}; the first reason: the reply is HTML,"
        " not JSON (Expecting value); it starts '<html><body><h1>502 Bad Gateway</h1>nginx</body></html>'"
    )
    assert failed.value.exit_code == 1
    assert [json.loads(line)["id"] for line in cache.path.read_text(encoding="utf-8").splitlines()] == ["q1", "q0"]


def test_a_refusal_stops_the_batch_and_cancels_the_requests_not_yet_sent(tmp_path):
    cache = JsonlCache(tmp_path / "answers.jsonl")
    with ChatStandIn(status_for_all=403, delay_seconds=0.3) as server:
        with pytest.raises(EndpointRefused, match=r"\(HTTP 403 PermissionDeniedError\): check --model: refused"):
            answer_all(
                _settings(server, concurrency=1), cache, [_job(n) for n in range(6)], refused_hint="check --model"
            )
    # the one thread had taken the second job when the first came back refused; the other four never go
    assert len(server.requests) <= 2 and not cache.path.exists()


def test_a_pool_factory_that_gives_none_sends_from_this_process_and_the_block_ends_it(tmp_path):
    made = []
    with ChatStandIn() as server, chat_pool_for_calls(lambda: made.append(1)):
        first = answer_all(_settings(server), JsonlCache(tmp_path / "a.jsonl"), [_job(1)], refused_hint="")
        second = answer_all(_settings(server), JsonlCache(tmp_path / "a.jsonl"), [_job(2)], refused_hint="")
    assert made == [1] and first.records[0]["ok"] and second.records[0]["ok"] and len(server.requests) == 2


def test_a_batch_counts_its_answers_on_the_terminal(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("BIASWH_PROGRESS", "1")
    with ChatStandIn() as server:
        answer_all(_settings(server), JsonlCache(tmp_path / "a.jsonl"), [_job(1), _job(2)], refused_hint="")
    assert "\rllm calls: 2/2 answers" in capsys.readouterr().out


def test_a_line_with_a_byte_that_is_not_utf8_is_read_with_a_replacement_character(tmp_path):
    path = tmp_path / "answers.jsonl"
    path.write_bytes(b'{"id": "a", "t": "caf\xff"}\n')
    assert JsonlCache(path).read() == {"a": {"id": "a", "t": "caf\ufffd"}}


class HintRecordingPool:
    """A pool that answers nothing and remembers the hint it was given for a refusal."""

    def __init__(self) -> None:
        self.hints: list[str] = []

    def answers(self, settings, jobs, *, refused_hint):
        self.hints.append(refused_hint)
        yield from ()


def test_a_pool_is_given_the_callers_hint_for_a_refusal(tmp_path):
    pool = HintRecordingPool()
    settings = EndpointSettings(base_url="http://127.0.0.1:9/v1", api_key_env="NO_SUCH_KEY_SET")
    answer_all(settings, JsonlCache(tmp_path / "a.jsonl"), [_job(1)], refused_hint="check --model", pool=pool)
    assert pool.hints == ["check --model"]
