"""Live systems as retrievers: the HTTP adapter against a stand-in search server on 127.0.0.1, and callables.

The adapter keeps the LLM client's distrust rules (it is that client): a whole-request deadline,
retries with backoff on 5xx, no redirect followed, a reply past the byte cap or not JSON refused;
and the key, read from the environment, is in no failure reason even when the server echoes it.
"""

from __future__ import annotations

import datetime

import pytest

from biaswh.compute.evaluation.demo_live_system import DEGRADED_WEEKS, demo_search
from biaswh.compute.evaluation.live_systems import ask_live_system, check_live
from biaswh.warehouse.errors import UserError
from tests.compute.evaluation.search_stand_in import SearchStandIn

KEY = "Bearer sk-live-test-4f9a2c"


def _answer(query: str, k: int) -> list[tuple[str, float]]:
    return [(f"doc-{i}", float(10 - i)) for i in range(min(k, 3))]


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("SEARCH_KEY", KEY)
    with SearchStandIn(_answer, key=KEY) as stand_in:
        yield stand_in


def _live(server, **options) -> dict:
    return {"http": server.url, "headers": {"Authorization": "env:SEARCH_KEY"}, "backoff": 0.01, **options}


def test_answers_come_back_as_ranked_hits_with_latency_and_the_reported_version(server):
    (answer,) = ask_live_system(_live(server), ["how do gardens work"], 2)
    assert answer.failure == "" and answer.hits == [("doc-0", 10.0), ("doc-1", 9.0)]
    assert answer.version == "search-2.3.1" and answer.attempts == 1 and answer.latency_ms > 0


def test_each_fault_is_that_querys_failure_with_its_reason_and_the_others_are_answered(server):
    texts = ["fine", "slow", "fail-once", "always-500", "malformed", "redirect", "oversized"]
    answers = dict(zip(texts, ask_live_system(_live(server, timeout=0.5, retries=2), texts, 5)))
    assert answers["fine"].failure == "" and len(answers["fine"].hits) == 3
    assert "deadline" in answers["slow"].failure
    assert answers["fail-once"].failure == "" and answers["fail-once"].attempts == 2  # retried, then answered
    assert answers["always-500"].failure.startswith("HTTP 503") and answers["always-500"].attempts == 3
    assert server.requests["always-500"] == 3
    assert "HTML, not JSON" in answers["malformed"].failure and answers["malformed"].attempts == 1
    redirect = answers["redirect"].failure
    assert "redirects to http://search.elsewhere.example/search" in redirect and "not followed" in redirect
    assert server.requests["redirect"] == 1  # never followed, never retried
    assert "larger than 1,000,000 bytes" in answers["oversized"].failure


def test_a_key_the_server_echoes_back_never_reaches_a_failure_reason(server):
    (answer,) = ask_live_system(_live(server, retries=0), ["echo-key"], 5)
    assert answer.failure.startswith("HTTP 500") and KEY not in answer.failure and "sk-live" not in answer.failure


def test_a_refused_key_stops_the_evaluation(server, monkeypatch):
    monkeypatch.setenv("SEARCH_KEY", "Bearer wrong")
    with pytest.raises(UserError, match="refused the request \\(HTTP 401"):
        ask_live_system(_live(server), ["fine"], 5)


@pytest.mark.parametrize(
    ("live", "message"),
    [
        ({"http": "ftp://x/search"}, "live.http: must be an http:// or https:// URL"),
        ({"http": "http://x/s", "headers": {"Authorization": "Bearer abc"}}, "headers.Authorization: must name an env"),
        ({"http": "http://x/s", "headers": {"Authorization": "env:NOT_SET_ANYWHERE"}}, "$NOT_SET_ANYWHERE is not set"),
        ({"callable": "nowhere.module:fn"}, "live.callable: cannot import 'nowhere.module'"),
        ({"callable": "json"}, "write 'package.module:function'"),
        ({"callable": "json:nothing_here"}, "'json' has no function 'nothing_here'"),
        ({"callable": "json:dumps", "retries": 2}, "live.retries: only an http system takes"),
        ({}, "give exactly one of http"),
    ],
)
def test_a_live_table_that_cannot_work_is_refused_in_one_line_naming_the_field(live, message):
    with pytest.raises(UserError) as refused:
        check_live(live, where="study.toml: [[evaluation.runs]] live:")
    assert message in str(refused.value) and "\n" not in str(refused.value)
    assert str(refused.value).startswith("study.toml: [[evaluation.runs]] live:")


def flaky(texts, k):
    """A user's callable: fails on 'boom', answers a NaN score to 'bad'."""
    if texts[0] == "boom":
        raise RuntimeError("index offline")
    if texts[0] == "bad":
        return [[("1", float("nan"))]]
    return [[("1", 2.0), ("2", 1.0), ("3", 0.5)]]


def test_a_callable_failing_or_answering_malformed_fails_that_query_only():
    fine, boom, bad = ask_live_system({"callable": f"{__name__}:flaky"}, ["fine", "boom", "bad"], 2)
    assert fine.hits == [("1", 2.0), ("2", 1.0)] and fine.failure == ""
    assert boom.failure == "RuntimeError: index offline" and boom.hits == []
    assert "score is not a finite number" in bad.failure


def test_the_demo_system_degrades_in_its_planted_weeks_only_and_deterministically():
    query = ["Who grows food in a community garden?"]
    healthy = demo_search(query, 10)
    assert healthy == demo_search(query, 10, partition=datetime.date(2026, 1, 19))
    assert healthy[0][0][0] == "0"  # the community gardens context, first
    for week in DEGRADED_WEEKS:
        degraded = demo_search(query, 10, partition=week)
        assert degraded == demo_search(query, 10, partition=week)
        assert all(int(doc) % 2 == 0 for doc, _ in degraded[0]) and len(degraded[0]) < len(healthy[0]) + 1
    assert demo_search(query, 10, partition=DEGRADED_WEEKS[-1] + datetime.timedelta(days=7)) == healthy
