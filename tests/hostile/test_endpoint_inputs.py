"""What a user types around an endpoint: bad numbers, a corrupt cache, partial failure, seeded jitter."""

from __future__ import annotations

import json
import re

import pytest

from biaswh.cli import main
from biaswh.ingest.common.llm.client import EndpointClient
from biaswh.ingest.silent_bias.generation_settings import GenerationSettings
from biaswh.warehouse.errors import UserError
from tests.conftest import DEMO_DATA
from tests.ingest.chat_stand_in import ChatStandIn

VIGNETTES = DEMO_DATA / "silent_bias" / "vignettes_demo.json"


@pytest.fixture(autouse=True)
def environment(monkeypatch, tmp_path):
    monkeypatch.setenv("BIASWH_HOME", str(tmp_path / "warehouse"))


def _generate(capsys, base_url: str, out, *extra: str) -> tuple[int, str, str]:
    code = main(["generate", str(VIGNETTES), "--model", "m", "--base-url", base_url, "--out", str(out),
                 "--backoff", "0.01", "--timeout", "2", *extra])  # fmt: skip
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        (["--timeout", "-1", "--concurrency", "0"], "argument --timeout: must be a number in (0, 86400], got '-1'"),
        (["--concurrency", "0"], "argument --concurrency:"),
        (["--timeout", "nan"], "argument --timeout:"),
        (["--max-retries", "-2"], "argument --max-retries:"),
        (["--max-reply-bytes", "0"], "argument --max-reply-bytes:"),
    ],
)
def test_numbers_out_of_range_end_in_one_line_before_any_request(tmp_path, capsys, options, fragment):
    with ChatStandIn() as server:
        with pytest.raises(SystemExit) as exit_info:
            _generate(capsys, server.base_url, tmp_path / "g.jsonl", *options)
        stderr = capsys.readouterr().err
    assert exit_info.value.code == 2 and stderr.count("\n") == 1 and fragment in stderr, stderr
    assert server.requests == [] and not (tmp_path / "g.jsonl").exists()


@pytest.mark.parametrize(
    ("field", "value", "fragment"),
    [
        ("concurrency", 0, "concurrency (--concurrency) must be an integer in [1, 256], not 0"),
        ("timeout_seconds", -1.0, "timeout_seconds (--timeout) must be a number in (0, 86400], not -1.0"),
        ("timeout_seconds", float("nan"), "timeout_seconds (--timeout) must be a number in (0, 86400], not nan"),
        ("timeout_seconds", float("inf"), "timeout_seconds (--timeout) must be a number in (0, 86400], not inf"),
        ("timeout_seconds", 1e300, "timeout_seconds (--timeout) must be a number in (0, 86400], not 1e+300"),
        ("backoff_seconds", 1e300, "backoff_seconds (--backoff) must be a number in [0, 3600], not 1e+300"),
        ("max_retries", -2, "max_retries (--max-retries) must be an integer in [0, 100], not -2"),
        ("max_reply_bytes", 0, "max_reply_bytes (--max-reply-bytes) must be an integer >= 1, not 0"),
    ],
)
def test_settings_refuse_the_same_numbers_from_python(field, value, fragment):
    """A notebook or another caller that skips the CLI meets the same check in the settings."""
    with pytest.raises(UserError, match=re.escape(fragment)):
        GenerationSettings(model="m", base_url="http://localhost:1/v1", **{field: value})


def test_the_settings_constructor_checks_too():
    with pytest.raises(UserError, match="backoff_seconds"):
        GenerationSettings(model="m", base_url="http://127.0.0.1:9/v1", backoff_seconds=float("inf"))
    with pytest.raises(UserError, match="base_url"):
        GenerationSettings(model="m", base_url="127.0.0.1:9")


def test_a_corrupt_cache_line_is_named_and_nothing_is_sent(tmp_path, capsys):
    out = tmp_path / "g.jsonl"
    with ChatStandIn() as server:
        assert _generate(capsys, server.base_url, out, "--limit", "3")[0] == 0
        lines = out.read_text(encoding="utf-8").splitlines()
        out.write_text("\n".join([lines[0], '{"id": "demo_002", "output_te', lines[2]]) + "\n", encoding="utf-8")
        sent = len(server.requests)
        code, _, stderr = _generate(capsys, server.base_url, out, "--limit", "3")
        assert code == 2 and f"{out}, line 2: corrupt cache line" in stderr and stderr.count("\n") == 1
        assert len(server.requests) == sent


def test_a_line_cut_short_by_a_crash_is_reported_and_sent_again(tmp_path, capsys):
    out = tmp_path / "g.jsonl"
    with ChatStandIn() as server:
        _generate(capsys, server.base_url, out, "--limit", "3")
        lines = out.read_text(encoding="utf-8").splitlines()
        out.write_text("\n".join(lines[:2]) + "\n" + lines[2][:25], encoding="utf-8")  # no final newline
        code, stdout, stderr = _generate(capsys, server.base_url, out, "--limit", "3")
    assert code == 0 and f"{out}, line 3: cut short" in stderr and "2 cached, 1 sent, 1 ok" in stdout
    assert [json.loads(line)["status"] for line in out.read_text(encoding="utf-8").splitlines()] == ["ok"] * 3


def test_partial_failure_exits_0_with_the_count(tmp_path, capsys):
    out = tmp_path / "g.jsonl"
    with ChatStandIn(failures={"WHITE man": ["html"]}) as server:
        code, stdout, _ = _generate(capsys, server.base_url, out, "--limit", "3")
    assert code == 0 and "3 sent, 2 ok, 1 failed after retries" in stdout
    failed = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines() if "failed" in line]
    assert len(failed) == 1 and "HTML, not JSON" in failed[0]["error_message"]


def test_backoff_jitter_is_seeded():
    def waits(seed):
        settings = GenerationSettings(
            model="m", base_url="http://127.0.0.1:9/v1", backoff_seconds=1.0, jitter_seed=seed
        )
        with EndpointClient(settings) as client:
            return [client.backoff(attempt) for attempt in range(4)]

    assert waits(3) == waits(3) != waits(4)
    assert all(0.5 * 2**i <= w < 2**i for i, w in enumerate(waits(3)))
    assert waits(None) == [1.0, 2.0, 4.0, 8.0]
