"""The recommendation experiment end to end: a localhost stand-in "model" that prefers long
posts answers every trial (with prose, unknown and repeated ids, short lists and 500s), the
study loads the post-level file it writes, and the recsys_bias job recovers the preference."""

from __future__ import annotations

import csv
import json
import re

import duckdb
import pytest

from biaswh.ingest.recsys.parse_reply import parse_reply
from biaswh.warehouse.settings.home import HOME_VARIABLE
from tests.conftest import run_main
from tests.ingest.chat_stand_in import ChatStandIn

KEY = "sk-test-recsys-secret-0123456789"
LINE = re.compile(r"^\[(p\d+)\] (.*)$", re.MULTILINE)


def prefers_long_posts(prompt: str, body: dict) -> str:
    """The injected preference: the k longest posts, wrapped in the ways real models wrap them."""
    posts = LINE.findall(prompt)
    k = int(re.search(r"the ids of the (\d+) posts", prompt).group(1))
    ranked = [post_id for post_id, text in sorted(posts, key=lambda p: (-len(p[1]), p[0]))][:k]
    trial_marker = sum(int(p[1:]) for p, _ in posts) % 4
    if trial_marker == 0:
        return f"Sure! Here are my picks:\n```json\n{json.dumps(ranked)}\n```\nHope this helps."
    if trial_marker == 1:  # an invented id and a repeat
        return json.dumps(["p9999", ranked[0], *ranked])
    if trial_marker == 2:  # fewer than k
        return json.dumps(ranked[:-1])
    return "My ranking: " + ", ".join(ranked)  # no JSON list at all


def test_parse_keeps_known_ids_in_order_and_records_what_was_wrong():
    shown = ["a1", "a2", "a3", "a4"]
    assert parse_reply('I pick ["a2", "zz", "a2", "a1"] because', shown_ids=shown, k=3) == parse_reply(
        '["a2","zz","a2","a1"]', shown_ids=shown, k=3
    )
    parsed = parse_reply('I pick ["a2", "zz", "a2", "a1"] because', shown_ids=shown, k=3)
    assert (parsed.ids, parsed.unknown_ids, parsed.duplicate_ids, parsed.status) == (
        ("a2", "a1"),
        ("zz",),
        ("a2",),
        "partial",
    )
    assert parse_reply("1. a3\n2. a4\n3. a1", shown_ids=shown, k=3).ids == ("a3", "a4", "a1")
    assert parse_reply("no idea", shown_ids=shown, k=2).status == "failed"


@pytest.fixture
def pool(tmp_path):
    posts, features = tmp_path / "pool.csv", tmp_path / "features.csv"
    with open(posts, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["post_id", "text", "topic"])  # text_length comes from text_features = true
        for i in range(120):
            text = " ".join(["word"] * (3 + (i * 37) % 40)) + f" <b>{i}</b>"
            writer.writerow([f"p{i}", text, ("politics", "sports", "tech")[i % 3]])
    features.write_text("feature,type\ntopic,categorical\n", encoding="utf-8")
    return posts, features


@pytest.mark.dbt
def test_the_study_recovers_the_injected_preference_through_the_stand_in(tmp_path, pool, monkeypatch, capfd):
    """`biaswh run` twice in this process (its parsed dbt project reused); capfd sees every byte
    written to stdout and stderr, dbt's and the logs' included, for the key check."""
    monkeypatch.setenv("RECSYS_TEST_KEY", KEY)
    posts, features = pool
    with ChatStandIn(responder=prefers_long_posts, failures={"[p": [500, 500]}) as stand_in:
        study = tmp_path / "experiment.toml"
        study.write_text(
            '[study]\nname = "experiment_test"\nseed = 11\njobs = ["recsys_bias"]\n\n'
            f'[[ingest]]\nsource = "recsys_experiment"\npath = "{posts}"\nfeatures_path = "{features}"\n'
            f'name = "stand_in_experiment"\nbase_url = "{stand_in.base_url}"\nmodels = ["long-lover"]\n'
            'prompt_styles = ["general", "controversial"]\nn_posts = 20\nk = 5\ntrials = 12\n'
            'concurrency = 3\nmax_retries = 3\nbackoff_seconds = 0.01\napi_key_env = "RECSYS_TEST_KEY"\n'
            "text_features = true\n",
            encoding="utf-8",
        )
        home = tmp_path / "warehouse"
        monkeypatch.setenv(HOME_VARIABLE, str(home))
        code, *first = run_main(["run", str(study), "--no-site"], capfd)
        assert code == 0, first
        n_requests = len(stand_in.requests)
        assert n_requests == 24 + 2  # every trial once, plus the two scripted 500s retried
        assert {r["authorization"] for r in stand_in.requests} == {f"Bearer {KEY}"}
        code, *second = run_main(["run", str(study), "--no-site"], capfd)
        assert code == 0, second
        assert len(stand_in.requests) == n_requests  # resumed from the cache: nothing re-sent
    assert "24 cached, 0 sent" in second[0] and "is unchanged" in second[0]
    trials_file = home / "generated" / "recsys" / "stand_in_experiment_trials.jsonl"
    trials = [json.loads(line) for line in trials_file.read_text(encoding="utf-8").splitlines()]
    assert len(trials) == 24 and all(t["raw_response"] and "{instruction}" in t["prompt_template"] for t in trials)
    assert any(t["parse_unknown_ids"] == ["p9999"] and t["parse_duplicate_ids"] for t in trials)
    assert any(t["parse_status"] == "partial" for t in trials) and any(t["parse_method"] == "id_scan" for t in trials)
    for output in (*first, *second, trials_file.read_text(encoding="utf-8")):
        assert KEY not in output
    con = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)
    try:
        rows = con.execute(
            "select prompt_style, bias, p_value, n_recommended from marts.fct_recsys_pool_vs_recommended"
            " where result_set = 'stand_in_experiment' and feature = 'text_length' order by prompt_style"
        ).fetchall()
        shown = con.execute(
            "select count(*), count(*) filter (where selected) from marts.fct_recsys_post_values"
            " where post_set = 'stand_in_experiment' and feature = 'topic'"
        ).fetchone()
    finally:
        con.close()
    assert [r[0] for r in rows] == ["controversial"] * 2 + ["general"] * 2  # each study run tests its own pins
    for _, bias, p_value, n_recommended in rows:
        assert bias > 1.0 and p_value < 1e-6 and 40 <= n_recommended <= 60  # long posts strongly favoured
    assert shown[0] == 24 * 20 and 24 * 4 <= shown[1] <= 24 * 5


def _settings(stand_in, **overrides):
    from biaswh.ingest.recsys.run_experiment import ExperimentSettings

    options = {
        "base_url": stand_in.base_url,
        "models": ("m",),
        "prompt_styles": ("general",),
        "n_posts": 10,
        "k": 3,
        "trials": 3,
        "max_retries": 1,
        "backoff_seconds": 0.01,
        "api_key_env": "RECSYS_TEST_KEY",
        "seed": 5,
    }
    return ExperimentSettings(**{**options, **overrides})


def test_a_trial_that_keeps_failing_is_recorded_left_out_and_resent_on_the_next_run(tmp_path, pool, monkeypatch):
    from biaswh.ingest.recsys.run_experiment import run_experiment

    monkeypatch.setenv("RECSYS_TEST_KEY", KEY)
    posts, _ = pool
    with ChatStandIn(responder=prefers_long_posts) as probe:  # which posts trial 1 shows: its first prompt line
        first = run_experiment(posts, ["topic"], tmp_path / "probe", _settings(probe), name="x")
    marker = next(line for line in first.trials_path.read_text(encoding="utf-8").splitlines() if '"trial": 1' in line)
    shown_first = json.loads(marker)["shown"][0]
    with ChatStandIn(responder=prefers_long_posts, failures={f"[{shown_first}] ": [500, 500]}) as stand_in:
        # one request at a time, trial 1 first: both scripted 500s go to its two attempts
        summary = run_experiment(posts, ["topic"], tmp_path / "out", _settings(stand_in, concurrency=1), name="x")
        assert (summary.n_sent, summary.n_usable, summary.n_failed) == (3, 2, 1)
        records = [json.loads(line) for line in summary.trials_path.read_text(encoding="utf-8").splitlines()]
        failed = [r for r in records if r["status"] == "failed"]
        assert len(failed) == 1 and "500" in failed[0]["error_message"] and failed[0]["meta"]["attempts"] == 2
        with open(summary.posts_path, encoding="utf-8") as handle:
            assert {row["trial"] for row in csv.DictReader(handle)} == {"1", "2", "3"} - {str(failed[0]["trial"])}
        again = run_experiment(posts, ["topic"], tmp_path / "out", _settings(stand_in), name="x")
    assert (again.n_cached, again.n_sent, again.n_usable) == (2, 1, 3)


def test_a_refused_key_stops_the_run_without_showing_the_key(tmp_path, pool, monkeypatch):
    from biaswh.ingest.recsys.run_experiment import run_experiment
    from biaswh.warehouse.errors import UserError

    monkeypatch.setenv("RECSYS_TEST_KEY", KEY)
    with ChatStandIn(status_for_all=401, echo_key_in_error=True) as stand_in:
        with pytest.raises(UserError, match="refused the request") as error:
            run_experiment(pool[0], ["topic"], tmp_path, _settings(stand_in), name="x")
    assert KEY not in str(error.value)
