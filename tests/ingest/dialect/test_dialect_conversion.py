"""LLM conversion with the original protocol, against a stand-in chat server on 127.0.0.1."""

from __future__ import annotations

import json

import pytest

from biaswh.ingest.dialect.convert_with_llm import (
    DEFAULT_CONVERSION_TEMPLATE,
    ConversionSettings,
    convert_questions,
    is_acceptable,
    write_pairs,
)
from biaswh.ingest.dialect.pairs import load_pairs
from biaswh.ingest.retrieval.squad import load_squad
from biaswh.warehouse.errors import UserError
from tests.conftest import DEMO_DATA, run_cli
from tests.ingest.chat_stand_in import ChatStandIn

SECRET = "sk-test-secret-abcdef0123"
ITEMS = [
    ("0", 0, "What is the capital of Peru?"),
    ("1", 1, "Who is running the show?"),
    ("2", 2, "Why isn't the bridge open?"),
    ("3", 3, "When was the bridge built?"),
]


def _reply(prompt: str) -> str:
    """A scripted converter: copula deletion, one unchanged, one invalid (no question mark), one too short."""
    question = prompt.rsplit("SAE question: ", 1)[1].strip()
    if "capital" in question:
        return "  What the capital of Peru?  "
    if "running" in question:
        return question
    if "bridge open" in question:
        return "Why the bridge ain't open."
    return "Why?"


def _settings(server: ChatStandIn, **overrides) -> ConversionSettings:
    options = {
        "model": "stand-in",
        "base_url": server.base_url,
        "api_key_env": "STAND_IN_KEY",
        "concurrency": 3,
        "max_retries": 3,
        "backoff_seconds": 0.01,
        "timeout_seconds": 5.0,
    }
    return ConversionSettings(**{**options, **overrides})


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv("STAND_IN_KEY", SECRET)


def _lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def test_acceptance_rule_is_the_originals():
    assert is_acceptable("Who he be?") and not is_acceptable("Why?") and not is_acceptable("Who he be.")


def test_conversions_are_recorded_accepted_only_by_the_rule_and_reported(tmp_path):
    out = tmp_path / "conversions.jsonl"
    with ChatStandIn(reply=_reply) as server:
        report = convert_questions(ITEMS, out, _settings(server))
    lines = {r["id"]: r for r in _lines(out)}
    assert [lines[i]["status"] for i in "0123"] == ["accepted", "accepted", "rejected", "rejected"]
    assert lines["0"]["reply"] == "What the capital of Peru?"  # stripped, as the original
    assert lines["0"]["prompt"] == DEFAULT_CONVERSION_TEMPLATE.format(sae_query="What is the capital of Peru?")
    assert lines["0"]["sampling"] == {"max_tokens": 150}  # temperature and top-p left to the endpoint
    assert "temperature" not in server.requests[0]["body"] and server.requests[0]["body"]["max_tokens"] == 150
    assert report["acceptance_rate"] == 0.5 and report["share_identical"] == 0.5
    assert report["edit_distance_tokens"]["histogram"] == {"0": 1, "1": 1, "2": 0, "3": 0, "4": 0, "5+": 0}
    assert report["n_sent"] == 4 and report["n_failed"] == 0
    assert all(r["authorization"] == f"Bearer {SECRET}" for r in server.requests)
    assert SECRET not in out.read_text()


def test_retries_then_resume_sends_only_what_failed(tmp_path):
    out = tmp_path / "conversions.jsonl"
    with ChatStandIn(reply=_reply, failures={"capital": [500, 429], "running": [503] * 10}) as server:
        first = convert_questions(ITEMS, out, _settings(server, max_retries=2))
    assert first["n_retries"] >= 4 and first["n_failed"] == 1  # "running" fails every retry
    assert {r["id"]: r["status"] for r in _lines(out)}["1"] == "failed"
    with ChatStandIn(reply=_reply) as server:
        second = convert_questions(ITEMS, out, _settings(server))
        assert server.prompt_counts().total() == 1  # only the failed one is asked again
    assert second["n_cached"] == 3 and second["n_failed"] == 0


def test_concurrency_is_bounded(tmp_path):
    items = [(str(i), i, f"What is the capital of country number {i}?") for i in range(8)]
    with ChatStandIn(reply=_reply, delay_seconds=0.4) as server:
        convert_questions(items, tmp_path / "c.jsonl", _settings(server, concurrency=2))
    assert server.max_in_flight == 2 and len(server.requests) == 8


def test_a_cache_made_with_other_settings_is_refused(tmp_path):
    out = tmp_path / "c.jsonl"
    with ChatStandIn(reply=_reply) as server:
        convert_questions(ITEMS, out, _settings(server))
        with pytest.raises(UserError, match="another model, template or sampling"):
            convert_questions(ITEMS, out, _settings(server, temperature=0.7))


def test_a_wrong_key_stops_the_run_without_printing_the_key(tmp_path):
    with ChatStandIn(status_for_all=401, echo_key_in_error=True) as server:
        with pytest.raises(UserError) as caught:
            convert_questions(ITEMS, tmp_path / "c.jsonl", _settings(server))
    assert "AuthenticationError" in str(caught.value) and SECRET not in str(caught.value)


def test_accepted_conversions_make_a_pairs_file_the_loader_reads(tmp_path, con):
    out = tmp_path / "c.jsonl"
    with ChatStandIn(reply=_reply) as server:
        settings = _settings(server)
        convert_questions(ITEMS, out, settings)
    pairs = tmp_path / "pairs.json"
    assert write_pairs(_lines(out), pairs, settings, {"seed": 42}) == 2
    row = json.loads(pairs.read_text())[0]
    assert row["conversion_method"].startswith("llm: stand-in via http://127.0.0.1:")
    assert row["sample_protocol"] == {"seed": 42}
    load_squad(con, str(DEMO_DATA / "squad_demo.json"))
    assert load_pairs(con, pairs).rows == 4


def test_the_cli_samples_converts_and_writes_pairs(tmp_path):
    squad = tmp_path / "questions.jsonl"
    squad.write_text("".join(json.dumps({"question": q}) + "\n" for *_, q in ITEMS), "utf-8")
    with ChatStandIn(reply=_reply) as server:
        completed = run_cli(
            "variants", "llm", "--squad", str(squad), "--sample", "3", "--model", "stand-in",
            "--base-url", server.base_url, "--api-key-env", "STAND_IN_KEY", "--out", str(tmp_path / "c.jsonl"),
            "--pairs-out", str(tmp_path / "pairs.json"), "--report", str(tmp_path / "report.json"),
            home=tmp_path / "warehouse",
        )  # fmt: skip
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["n_questions"] == 3 and "acceptance_rate" in report
    assert "accepted pairs" in completed.stdout and SECRET not in completed.stdout + completed.stderr
