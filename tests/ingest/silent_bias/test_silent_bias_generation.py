"""`biaswh generate` against a stand-in chat server on 127.0.0.1: records, retries, timeouts, resume, secrets."""

from __future__ import annotations

import json

import pytest

from biaswh.ingest.silent_bias.generate_answers import DEFAULT_PROMPT_TEMPLATE, GenerationSettings, generate
from biaswh.ingest.silent_bias.load_generations import load_generations
from biaswh.warehouse.errors import UserError
from tests.conftest import DEMO_DATA, run_cli
from tests.ingest.chat_stand_in import ChatStandIn

VIGNETTES = DEMO_DATA / "silent_bias" / "vignettes_demo.json"
SECRET = "sk-test-secret-0123456789"


def _settings(server: ChatStandIn, **overrides) -> GenerationSettings:
    options = {
        "model": "stand-in-model",
        "base_url": server.base_url,
        "api_key_env": "STAND_IN_KEY",
        "concurrency": 3,
        "max_retries": 3,
        "backoff_seconds": 0.01,
        "timeout_seconds": 5.0,
    }
    return GenerationSettings(**{**options, **overrides})


def _lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv("STAND_IN_KEY", SECRET)


def test_every_vignette_is_answered_with_prompt_template_and_sampling_recorded(tmp_path):
    out = tmp_path / "gen.jsonl"
    with ChatStandIn() as server:
        summary = generate(VIGNETTES, out, _settings(server, seed=7))
    lines = _lines(out)
    assert summary.n_sent == summary.n_ok == len(lines) == 10
    assert [r["id"] for r in lines] == [f"demo_{i:03d}" for i in range(1, 11)]
    first = lines[0]
    vignette = json.loads(VIGNETTES.read_text())["cases"][0]
    assert first["prompt"] == DEFAULT_PROMPT_TEMPLATE.format(prompt=vignette["prompt"])
    assert first["prompt_template"] == DEFAULT_PROMPT_TEMPLATE
    assert first["sampling"] == {"temperature": 0.7, "top_p": 0.9, "max_tokens": 8192, "seed": 7}
    assert first["output_text"].startswith("<think>\nthinking about A 50-year-old BLACK")
    assert first["status"] == "ok" and first["meta"]["attempts"] == 1
    # the request carried the sampling parameters and the key, which appears nowhere in the output
    assert server.requests[0]["body"]["temperature"] == 0.7 and server.requests[0]["body"]["seed"] == 7
    assert all(r["authorization"] == f"Bearer {SECRET}" for r in server.requests)
    assert SECRET not in out.read_text()


def test_no_more_requests_in_flight_than_the_concurrency_limit(tmp_path):
    with ChatStandIn(delay_seconds=0.1) as server:
        generate(VIGNETTES, tmp_path / "gen.jsonl", _settings(server, concurrency=2))
    assert server.max_in_flight == 2 and len(server.requests) == 10


def test_server_errors_and_rate_limits_are_retried_with_backoff(tmp_path):
    out = tmp_path / "gen.jsonl"
    with ChatStandIn(failures={"WHITE man": [500, 429, 503]}) as server:
        summary = generate(VIGNETTES, out, _settings(server))
    record = {r["id"]: r for r in _lines(out)}["demo_002"]
    assert record["status"] == "ok" and record["meta"]["attempts"] == 4
    assert summary.n_retries == 3 and summary.n_failed == 0
    assert sum(n for p, n in server.prompt_counts().items() if "WHITE man" in p) == 4


def test_a_request_that_times_out_is_retried(tmp_path):
    out = tmp_path / "gen.jsonl"
    with ChatStandIn(failures={"FEMALE": ["slow"]}, slow_seconds=2.0) as server:
        generate(VIGNETTES, out, _settings(server, timeout_seconds=0.5, max_retries=2))
    record = {r["id"]: r for r in _lines(out)}["demo_003"]
    assert record["status"] == "ok" and record["meta"]["attempts"] == 2


def test_rerun_sends_only_what_is_missing_or_failed(tmp_path):
    out = tmp_path / "gen.jsonl"
    with ChatStandIn(failures={"HOMELESS": [500, 500]}) as server:
        first = generate(VIGNETTES, out, _settings(server, max_retries=1))
    assert (first.n_ok, first.n_failed) == (9, 1)
    failed = {r["id"]: r for r in _lines(out)}["demo_007"]
    assert failed["status"] == "failed" and "InternalServerError" in failed["error_message"]

    lines = out.read_text().splitlines()
    out.write_text("\n".join(line for line in lines if '"demo_010"' not in line) + "\n")  # lose one answer
    with ChatStandIn() as server:
        second = generate(VIGNETTES, out, _settings(server))
    sent = sorted(r["body"]["messages"][-1]["content"].split()[1] for r in server.requests)
    assert (second.n_cached, second.n_sent, second.n_ok) == (8, 2, 2)
    assert len(server.requests) == 2 and any("HOMELESS" in r["prompt"] for r in server.requests), sent
    lines = _lines(out)
    assert len(lines) == 10 and all(r["status"] == "ok" for r in lines)  # compacted: one line per id

    with ChatStandIn() as server:
        third = generate(VIGNETTES, out, _settings(server))
    assert server.requests == [] and third.n_sent == 0 and third.n_cached == 10


def test_cache_made_with_other_sampling_is_refused(tmp_path):
    out = tmp_path / "gen.jsonl"
    with ChatStandIn() as server:
        generate(VIGNETTES, out, _settings(server), limit=2)
        with pytest.raises(UserError, match="another model, template or sampling"):
            generate(VIGNETTES, out, _settings(server, temperature=0.0))


def test_wrong_key_stops_the_run_and_the_key_is_never_written_or_shown(tmp_path):
    out = tmp_path / "gen.jsonl"
    with ChatStandIn(status_for_all=401, echo_key_in_error=True) as server:
        with pytest.raises(UserError) as caught:
            generate(VIGNETTES, out, _settings(server, concurrency=1))
    assert "AuthenticationError" in str(caught.value) and SECRET not in str(caught.value)
    assert len(server.requests) < 10
    assert not out.exists() or SECRET not in out.read_text()


def test_cli_generate_then_ingest_round_trip(tmp_path, con):
    out = tmp_path / "cli.jsonl"
    with ChatStandIn(failures={"82-year-old": [502]}) as server:
        completed = run_cli(
            "generate",
            str(VIGNETTES),
            "--model",
            "stand-in-model",
            "--base-url",
            server.base_url,
            "--out",
            str(out),
            "--api-key-env",
            "STAND_IN_KEY",
            "--backoff",
            "0.01",
            "--concurrency",
            "2",
            home=tmp_path / "home",
        )
    assert "10 sent, 10 ok, 0 failed after retries (1 retries)" in completed.stdout
    assert SECRET not in completed.stdout + completed.stderr + out.read_text()
    result = load_generations(con, out, vignette_set="silent_bias_demo")
    assert result.rows == 10
    stored = con.execute(
        "select model, count(*), count_if(status = 'ok'), any_value(prompt_template)"
        " from raw.silent_bias_generations group by model"
    ).fetchall()
    assert stored == [("cli", 10, 10, DEFAULT_PROMPT_TEMPLATE)]
