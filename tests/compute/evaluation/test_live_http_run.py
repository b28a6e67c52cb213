"""A live HTTP search system in a real evaluation study run: recorded as a run, partly failing, key kept out.

The stand-in endpoint on 127.0.0.1 answers with the demo system's BM25 rankings, except three
questions (a 503 every time, a reply that is not JSON, a 500 that echoes the key). The run is
marked partial, its metrics are over the 61 answered questions, each failure is a row with its
reason, and the key (read from the environment) is nowhere in the warehouse, the run's output or
dbt's logs.
"""

from __future__ import annotations

import json

import duckdb
import pytest

from biaswh.compute.evaluation.demo_live_system import DEMO_SQUAD, demo_search
from tests.compute.evaluation.search_stand_in import SearchStandIn
from tests.conftest import REPOSITORY_ROOT, run_study_printed

pytestmark = pytest.mark.dbt

KEY = "Token live-run-secret-7c1e"
DATA = REPOSITORY_ROOT / "studies" / "demo_data"
ARTICLES = json.loads(DEMO_SQUAD.read_text(encoding="utf-8"))["data"]
QUESTIONS = [q["question"] for article in ARTICLES for p in article["paragraphs"] for q in p["qas"]]
FAULTS = {QUESTIONS[0]: "always-500", QUESTIONS[1]: "malformed", QUESTIONS[2]: "echo-key"}


def _config(folder, url: str) -> str:
    path = folder / "live_http.toml"
    path.write_text(
        f"""
[study]
name = "live_http_demo"
seed = 7
data = "demo"
jobs = ["evaluation"]
analysis = ["evaluation"]

[[ingest]]
source = "squad"
path = "{DATA}/squad_demo.json"
split = "validation"
name = "demo_validation"

[[ingest]]
source = "qrels"
path = "{DATA}/evaluation/demo_qrels.csv"
query_set = "squad_questions:demo_validation"

[retrieval]
retrievers = ["bm25"]
depth = 10

[parameters]
evaluation_k = [1, 5, 10]

[evaluation]
query_set = "squad_questions:demo_validation"
compare = {{ metric = "ndcg", k = 10 }}

[[evaluation.runs]]
label = "live"
system = "prod_search"
live = {{ http = "{url}", headers = {{ Authorization = "env:SEARCH_KEY" }}, timeout = 5, retries = 1, backoff = 0.01 }}
""",
        encoding="utf-8",
    )
    return str(path)


@pytest.fixture(scope="module")
def live_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("live-http")
    with pytest.MonkeyPatch.context() as patch, SearchStandIn(lambda q, k: demo_search([q], k)[0], key=KEY,
                                                                faults=FAULTS) as server:  # fmt: skip
        patch.setenv("SEARCH_KEY", KEY)
        printed = run_study_printed(_config(folder, server.url), home=folder / "warehouse", site=False)
    con = duckdb.connect(str(folder / "warehouse" / "warehouse.duckdb"), read_only=True)
    yield con, printed, folder, server
    con.close()


def test_a_partly_failing_live_run_is_marked_and_its_metrics_say_over_how_many_queries(live_run):
    con, printed, *_ = live_run
    status = con.execute(
        "select n_asked, n_answered, n_failed, is_partial, system_version from marts.agg_evaluation_live_runs"
    ).fetchone()
    assert status == (64, 61, 3, True, "search-2.3.1")
    assert con.execute("select n_queries from marts.dim_evaluation_runs").fetchone() == (61,)
    assert "3 of 64 queries failed: partly evaluated" in printed
    judged = con.execute(
        "select count(distinct query_id) from marts.fct_evaluation_query_metrics where retriever = 'prod_search'"
    ).fetchone()[0]
    assert 0 < judged <= 61


def test_each_failed_query_is_a_row_with_its_reason_and_answers_carry_latency(live_run):
    con, *_ = live_run
    failed = {
        question: (reason, attempts)
        for question, reason, attempts in con.execute(
            "select questions.question, live.failure_reason, live.attempts"
            " from staging.stg_evaluation__live_queries as live join marts.fct_squad_questions as questions"
            " on live.query_id = questions.row_idx::varchar and questions.split = 'demo_validation'"
            " where live.status = 'failed'"
        ).fetchall()
    }
    assert set(failed) == set(FAULTS)
    assert failed[QUESTIONS[0]][0].startswith("HTTP 503") and failed[QUESTIONS[0]][1] == 2  # retried once
    assert "HTML, not JSON" in failed[QUESTIONS[1]][0] and failed[QUESTIONS[1]][1] == 1  # not retried
    assert failed[QUESTIONS[2]][0].startswith("HTTP 500") and failed[QUESTIONS[2]][1] == 2
    written = {text for (text,) in con.execute("select query_text from raw.retrieval_queries").fetchall()}
    assert len(written) == 61 and not written & set(FAULTS)  # only answered queries are evaluated
    latencies = con.execute(
        "select count(*), min(latency_ms), min(timing) from raw.retrieval_query_stats where retriever = 'prod_search'"
    ).fetchone()
    assert latencies[0] == 61 and latencies[1] > 0 and latencies[2] == "per_query"


def test_the_key_is_nowhere_in_the_warehouse_the_output_or_the_logs(live_run):
    con, printed, folder, server = live_run
    assert server.requests["echo-key"] == 2  # the key was echoed back twice
    secret = KEY.split()[-1]
    assert secret not in printed
    columns = con.execute(
        "select table_schema, table_name, column_name from information_schema.columns join information_schema.tables"
        " using (table_schema, table_name) where data_type in ('VARCHAR', 'JSON') and table_type = 'BASE TABLE'"
    ).fetchall()
    found = [
        column
        for column in columns
        if con.execute(
            f'select count(*) from "{column[0]}"."{column[1]}" where "{column[2]}"::varchar like ?', [f"%{secret}%"]
        ).fetchone()[0]
    ]
    assert not found and len(columns) > 50
    logs = list((folder / "warehouse").rglob("*.log"))
    assert logs and not [path for path in logs if secret in path.read_text(errors="replace")]
