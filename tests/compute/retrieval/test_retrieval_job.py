"""The ``retrieval`` study job end to end on the demo study: real dbt builds, DuckDB, LanceDB."""

from __future__ import annotations

import dataclasses
import json
import tomllib

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from biaswh.compute.retrieval.ranking import top_k
from biaswh.compute.retrieval.tokenize import RegexTokenizer
from biaswh.ingest.common.embedding_cache import CACHE_VARIABLE
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.settings.home import HOME_VARIABLE
from tests.conftest import DEMO_DATA, DEMO_STUDY, copy_warehouse, run_cli
from tests.fingerprints import raw_fingerprint

pytestmark = pytest.mark.dbt

# Sizes of the demo study's inputs, read from its files rather than written down here.
_DEMO = tomllib.loads(DEMO_STUDY.read_text(encoding="utf-8"))
DEPTH = _DEMO["retrieval"]["depth"]
N_PAIR_QUERIES = 2 * (len((DEMO_DATA / "dialect_pairs_demo.csv").read_text(encoding="utf-8").splitlines()) - 1)
N_QUESTIONS = sum(
    len(p["qas"])
    for a in json.loads((DEMO_DATA / "squad_demo.json").read_text(encoding="utf-8"))["data"]
    for p in a["paragraphs"]
)
N_RETRIEVERS = len(_DEMO["retrieval"]["retrievers"]) + len(_DEMO["retrieval"]["hybrid"]["sweep_weights"])


@pytest.fixture(scope="module")
def demo_home(demo_warehouse, tmp_path_factory):
    """A copy of the session's demo warehouse (retrieval job included) and what its run printed."""
    home = copy_warehouse(demo_warehouse.home, tmp_path_factory.mktemp("retrieval-demo") / "warehouse")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(CACHE_VARIABLE, str(demo_warehouse.embedding_cache))  # the vectors that run embedded
        patch.setenv(HOME_VARIABLE, str(home))
        yield home, demo_warehouse.stdout


@pytest.fixture
def demo_con(demo_home):
    from biaswh.warehouse.database.connection import connect

    connection = connect()
    yield connection
    connection.close()


def _study_run_id(con) -> str:
    return con.execute(
        "select run_id from raw.runs where kind = 'study' and status = 'succeeded' order by started_at limit 1"
    ).fetchone()[0]


def _pin_like_the_study(con, run_id: str) -> None:
    """Give a hand-made run id the demo study run's pinned inputs (as `biaswh run` records them)."""
    con.execute(
        "insert or ignore into raw.run_inputs select ?, dataset, source_name, version from raw.run_inputs"
        " where run_id = ? and dataset = 'query_pairs'",
        [run_id, _study_run_id(con)],
    )


def _study(**settings):
    from biaswh.pipeline import load_plugins
    from biaswh.warehouse.runs.study import load_study

    load_plugins()
    study = load_study(DEMO_STUDY, limit=2)
    retrieval = {**study.settings["retrieval"], **settings}
    return dataclasses.replace(study, settings={**study.settings, "retrieval": retrieval})


def test_bm25_rows_equal_rank_bm25_over_the_corpus_mart(demo_con):
    documents = demo_con.execute(
        "select doc_id, document_text from marts.dim_corpus_documents where split = 'demo_train' order by doc_id"
    ).fetchall()
    run_id = _study_run_id(demo_con)
    tokenizer = RegexTokenizer()
    oracle = BM25Okapi([tokenizer(text) for _, text in documents])
    doc_ids = np.array([d for d, _ in documents])
    queries = demo_con.execute(
        "select query_id, variant, query_text from raw.retrieval_queries"
        " where query_set = 'dialect_pairs_demo' and run_id = ?",
        [run_id],
    ).fetchall()
    assert len(queries) == N_PAIR_QUERIES
    for query_id, variant, text in queries:
        rows = demo_con.execute(
            "select doc_id, score from raw.retrieval_results where retriever = 'bm25' and query_set ="
            " 'dialect_pairs_demo' and query_id = ? and variant = ? and run_id = ? order by rank",
            [query_id, variant, run_id],
        ).fetchall()
        tokens = tokenizer(text)
        scores = oracle.get_scores(tokens)
        matched = np.array([any(t in doc for t in tokens) for doc in oracle.doc_freqs])
        want_ids, want_scores = top_k(np.where(matched, scores, -np.inf), doc_ids, DEPTH)
        assert [r[0] for r in rows] == want_ids.tolist()
        assert [r[1] for r in rows] == want_scores.tolist()  # bit for bit


def test_every_retriever_lands_with_provenance(demo_con, demo_home):
    _, stdout = demo_home
    run_id = _study_run_id(demo_con)
    counts = dict(
        demo_con.execute(
            "select retriever, count(*) from raw.retrieval_results"
            " where query_set = 'dialect_pairs_demo' and run_id = ? group by 1",
            [run_id],
        ).fetchall()
    )
    for name in ("dense", "hybrid_minmax", "hybrid_rrf"):
        assert counts[name] == N_PAIR_QUERIES * DEPTH, name
    assert N_PAIR_QUERIES <= counts["bm25"] <= N_PAIR_QUERIES * DEPTH  # only documents sharing a query token
    assert N_PAIR_QUERIES * DEPTH <= counts["hybrid_union"] <= N_PAIR_QUERIES * DEPTH * 2
    assert {"hybrid_minmax@0", "hybrid_minmax@1"} <= set(counts)
    # The sweep's end points are the two retrievers' own rankings.
    same = demo_con.execute(
        """
        select count(*) from raw.retrieval_results a join raw.retrieval_results b
          using (run_id, query_set, query_id, variant, rank)
        where a.retriever = 'hybrid_minmax@0' and b.retriever = 'dense' and a.doc_id = b.doc_id
          and run_id = ?""",
        [run_id],
    ).fetchone()[0]
    assert same >= 0.9 * N_PAIR_QUERIES * DEPTH
    parameters = demo_con.execute("select parameters from raw.runs where run_id = ?", [run_id]).fetchone()[0]
    resolved = json.loads(parameters)["retrieval_resolved"]
    assert resolved["tokenizer"] == {"kind": "regex", "pattern": "[a-z0-9]+", "lowercase": True}
    assert resolved["depth"] == DEPTH and resolved["embedding_model_id"] == "all-MiniLM-L6-v2"
    stats = demo_con.execute(
        "select count(*), count(reason), count(latency_ms) from raw.retrieval_query_stats where run_id = ?", [run_id]
    ).fetchone()
    assert stats[0] == (N_PAIR_QUERIES + N_QUESTIONS) * N_RETRIEVERS and stats[1] == 0 and stats[2] == stats[0]
    relevant = demo_con.execute(
        "select count(relevant_doc_id) from raw.retrieval_queries where query_set ="
        " 'squad_questions_demo_train' and run_id = ?",
        [run_id],
    ).fetchone()[0]
    assert relevant == N_QUESTIONS
    staged = demo_con.execute(
        "select count(*) from staging.stg_retrieval__results where run_id = ?", [run_id]
    ).fetchone()[0]
    assert (
        staged
        == demo_con.execute("select count(*) from raw.retrieval_results where run_id = ?", [run_id]).fetchone()[0]
    )
    # The demo's vectors ship with it (studies/demo_data/embeddings/): imported into the empty cache, none embedded.
    assert "embeddings retrieval-all-MiniLM-L6-v2.parquet: 134 vectors, 134 new in the cache" in stdout
    assert "to embed" not in stdout


def test_rerun_embeds_nothing_and_limit_limits_queries(demo_con, capsys):
    from biaswh.compute.retrieval.steps import retrieval_job
    from biaswh.ingest.common.embedding_cache import shared_embedding_cache

    cache = shared_embedding_cache("all-MiniLM-L6-v2")
    cached = cache.known().num_rows
    _pin_like_the_study(demo_con, "rerun-with-limit")
    retrieval_job(demo_con, _study(), "rerun-with-limit")
    assert "to embed" not in capsys.readouterr().out
    assert cache.known().num_rows == cached
    asked = dict(
        demo_con.execute(
            "select query_set, count(*) from raw.retrieval_queries where run_id = 'rerun-with-limit' group by 1"
        ).fetchall()
    )
    assert asked == {"dialect_pairs_demo": 4, "squad_questions_demo_train": 2}


@pytest.mark.parametrize(
    "embedding, message",
    [
        ({"provider": "local", "model": "/no/such/model/folder"}, "unknown embedding model"),
        ({"provider": "openai", "model": "m", "api_key_env": "BIASWH_TEST_NO_KEY"}, "BIASWH_TEST_NO_KEY"),
        ({"provider": "local", "precomputed": ["/no/such/vectors.parquet"]}, "no such embeddings file"),
    ],
)
def test_bad_embedding_settings_are_reported_before_any_work(demo_con, monkeypatch, embedding, message):
    from biaswh.compute.retrieval.steps import retrieval_job

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("BIASWH_TEST_NO_KEY", raising=False)
    _pin_like_the_study(demo_con, "bad-settings")
    before = raw_fingerprint(demo_con)
    with pytest.raises(UserError, match=message):
        retrieval_job(demo_con, _study(embedding=embedding), "bad-settings")
    assert raw_fingerprint(demo_con) == before


def test_a_split_without_documents_is_refused(demo_con):
    from biaswh.compute.retrieval.steps import load_corpora

    with pytest.raises(UserError, match="corpus 'validation' has no documents"):
        load_corpora(demo_con, {"validation"})


def test_trec_round_trip_through_the_cli(demo_home, tmp_path):
    home, _ = demo_home
    listed = run_cli(
        "sql",
        "select run_id from raw.retrieval_runs where retriever = 'bm25'"
        " and query_set = 'dialect_pairs_demo' order by created_at limit 1",
        "--csv",
        home=home,
    )
    run_id = listed.stdout.splitlines()[1]
    out = tmp_path / "bm25.trec"
    run_cli(
        "trec",
        "export",
        str(out),
        "--run",
        run_id,
        "--retriever",
        "bm25",
        "--query-set",
        "dialect_pairs_demo",
        home=home,
    )
    first = out.read_text().splitlines()[0].split()
    assert first[1] == "Q0" and first[0].endswith(("/sae", "/aae")) and first[5] == "bm25"
    imported = run_cli("trec", "import", str(out), "--query-set", "dialect_pairs_demo", home=home).stdout
    new_run = imported.split()[-1]
    from biaswh.warehouse.database.connection import connect

    con = connect(read_only=True)
    try:
        differences = con.execute(
            """
            (select query_id, variant, rank, doc_id, score from raw.retrieval_results
              where run_id = ? and retriever = 'bm25' and query_set = 'dialect_pairs_demo'
             except all
             select query_id, variant, rank, doc_id, score from raw.retrieval_results
              where run_id = ? and retriever = 'trec:bm25')
            union all
            (select query_id, variant, rank, doc_id, score from raw.retrieval_results where run_id = ?
             except all
             select query_id, variant, rank, doc_id, score from raw.retrieval_results
              where run_id = ? and retriever = 'bm25' and query_set = 'dialect_pairs_demo')""",
            [run_id, new_run, new_run, run_id],
        ).fetchall()
        kind = con.execute("select kind from raw.runs where run_id = ?", [new_run]).fetchone()[0]
    finally:
        con.close()
    assert differences == [] and kind == "trec_import"


def test_chunked_bm25_retrieval_writes_the_same_rows(demo_con, monkeypatch):
    import biaswh.compute.retrieval.query_set_retrieval as chunked
    import biaswh.compute.retrieval.steps as job

    study = _study(retrievers=["bm25", "bm25@k1=0.9,b=0.4"], hybrid={})
    study = dataclasses.replace(study, limit=None)
    monkeypatch.setattr(chunked, "QUERY_CHUNK", 3)  # several chunks per query set
    _pin_like_the_study(demo_con, "chunked")
    job.retrieval_job(demo_con, study, "chunked")
    _pin_like_the_study(demo_con, "one-chunk")
    monkeypatch.setattr(chunked, "QUERY_CHUNK", 10_000)
    job.retrieval_job(demo_con, study, "one-chunk")

    def rows(run_id: str, query: str) -> list:
        return demo_con.execute(query + " order by all", [run_id]).fetchall()

    for query in (
        "select query_set, retriever, query_id, variant, rank, doc_id, score from raw.retrieval_results"
        " where run_id = ?",
        "select query_set, retriever, query_id, variant, n_hits, reason from raw.retrieval_query_stats"
        " where run_id = ?",
        "select query_set, query_id, variant, query_text, relevant_doc_id from raw.retrieval_queries where run_id = ?",
        "select query_set, retriever, retriever_family, depth, n_queries, n_queries_with_hits"
        " from raw.retrieval_runs where run_id = ?",
    ):
        chunked = rows("chunked", query)
        assert chunked and chunked == rows("one-chunk", query), query
