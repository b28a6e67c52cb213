"""A dialect study over a non-SQuAD corpus end to end: pairs whose gold is a corpus document
and pairs whose gold is a judged query, over the BEIR demo corpus, with hand-checked ranks.

The pairs are written so that BM25 (tokens [a-z0-9]+, only documents sharing a query token are
ranked) can be followed by hand: each query's words occur in one document only, or in none.
"""

from __future__ import annotations

from types import SimpleNamespace

import duckdb
import pytest

from biaswh.pipeline import dbt_build
from biaswh.rebuild import rebuild_run
from biaswh.study_builds import STUDY_BUILD_ARGS
from biaswh.warehouse.settings.home import HOME_VARIABLE, REPOSITORY_ROOT
from tests.conftest import DEMO_DATA, copy_warehouse, run_cli, run_here, run_study_here

pytestmark = pytest.mark.dbt
BEIR = DEMO_DATA / "beir_demo"

# gold by document id: "reset password" only in kb-001, "invoices" only in kb-003, "slack" only
# in kb-009; the AAE words "zzyzx", "bilz" are in no document (a miss), "slack" is in kb-009.
BY_DOCUMENT = """id,gold_doc_id,sae_query,aave_query
d1,kb-001,reset password,zzyzx
d2,kb-003,invoices,bilz
d3,kb-009,slack,slack
"""
# gold by judged query: q1 judges kb-001 (2) and kb-002 (1); q5 judges kb-008 (2) and kb-007 (1).
# "authentication" is only in kb-002 (relevant, grade 1), "429" only in kb-008, "developer" only
# in kb-007 (relevant, grade 1), "zzyzx" nowhere.
BY_QUERY = """id,gold_query_id,sae_query,aave_query
p1,q1,authentication,zzyzx
p5,q5,429,developer
"""


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dialect_any_corpus")
    (folder / "by_document.csv").write_text(BY_DOCUMENT, encoding="utf-8")
    (folder / "by_query.csv").write_text(BY_QUERY, encoding="utf-8")
    config = (REPOSITORY_ROOT / "studies" / "dialect_any_corpus.toml").read_text(encoding="utf-8")
    config = (
        config.replace('"demo_data/beir_demo/dialect_pairs_by_document.csv"', '"by_document.csv"')
        .replace('"demo_data/beir_demo/dialect_pairs_by_query.csv"', '"by_query.csv"')
        .replace('"demo_data/beir_demo', f'"{BEIR}')
    )
    assert "by_document.csv" in config and "by_query.csv" in config
    (folder / "study.toml").write_text(config, encoding="utf-8")
    home = folder / "warehouse"
    run_study_here(str(folder / "study.toml"), home=home, site=False)  # rows only: no page is read
    con = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)
    yield SimpleNamespace(con=con, home=home, toml=folder / "study.toml")
    con.close()


def _doc_id(con, source_doc_id: str) -> int:
    return con.execute(
        "select doc_id from marts.dim_corpus_documents where split = 'helpdesk_demo' and source_doc_id = ?",
        [source_doc_id],
    ).fetchone()[0]


def test_gold_ranks_follow_the_hand_checked_rankings(study):
    ranks = {
        (pair_set, pair_id, variant): (gold, rank)
        for pair_set, pair_id, variant, gold, rank in study.con.execute(
            "select pair_set, pair_id, variant, gold_doc_id, rank_of_gold from marts.fct_dialect_gold_ranks"
            " where retriever = 'bm25'"
        ).fetchall()
    }
    doc = lambda source_id: _doc_id(study.con, source_id)  # noqa: E731
    assert ranks == {
        ("helpdesk_pairs_by_document", "d1", "sae"): (doc("kb-001"), 1),
        ("helpdesk_pairs_by_document", "d1", "aae"): (doc("kb-001"), None),
        ("helpdesk_pairs_by_document", "d2", "sae"): (doc("kb-003"), 1),
        ("helpdesk_pairs_by_document", "d2", "aae"): (doc("kb-003"), None),
        ("helpdesk_pairs_by_document", "d3", "sae"): (doc("kb-009"), 1),
        ("helpdesk_pairs_by_document", "d3", "aae"): (doc("kb-009"), 1),
        # a judged query's best-ranked relevant document is the gold; a miss names the smallest id
        ("helpdesk_pairs_by_query", "p1", "sae"): (doc("kb-002"), 1),
        ("helpdesk_pairs_by_query", "p1", "aae"): (min(doc("kb-001"), doc("kb-002")), None),
        ("helpdesk_pairs_by_query", "p5", "sae"): (doc("kb-008"), 1),
        ("helpdesk_pairs_by_query", "p5", "aae"): (doc("kb-007"), 1),
    }


def _pinned(con) -> list[tuple]:
    """The judgments the run is evaluated with for the judged-query pairs, by source document id."""
    return con.execute(
        "select query_id, d.source_doc_id, relevance, judgment_source"
        " from intermediate.int_retrieval_judgments_pinned j"
        " join marts.dim_corpus_documents d on d.split = 'helpdesk_demo' and d.doc_id = j.doc_id"
        " where j.query_set = 'helpdesk_pairs_by_query' order by all"
    ).fetchall()


PINNED = [
    ("p1", "kb-001", 2, "file:test"),
    ("p1", "kb-002", 1, "file:test"),
    ("p5", "kb-007", 1, "file:test"),
    ("p5", "kb-008", 2, "file:test"),
]


def test_the_run_pinned_the_gold_querys_qrels_in_dbt_and_copied_nothing_into_raw(study):
    assert _pinned(study.con) == PINNED
    copied = study.con.execute(
        "select count(*) from raw.retrieval_judgments where query_set = 'helpdesk_pairs_by_query'"
    ).fetchone()[0]
    assert copied == 0
    texts = study.con.execute(
        "select query_id, count(*) filter (where document_text is not null)"
        " from intermediate.int_retrieval_pair_judgments_pinned group by all order by all"
    ).fetchall()
    assert texts == [("p1", 2), ("p5", 2)]  # every relevant document's text, for the error examples


GOLD_RANKS = "select * from marts.fct_dialect_gold_ranks order by all"
# A study build of the judgments a run is evaluated with: the pinned judgments and everything they
# read (the gold marts, the qrels, the pairs' pin), data tests included; the marts downstream are
# run-keyed and never recompute a finished run (a rebuild of the run does, below).
JUDGMENTS_BUILD = [*STUDY_BUILD_ARGS, "--select", "+int_retrieval_judgments_pinned", "--indirect-selection", "cautious"]


def _building(home, work):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(HOME_VARIABLE, str(home))
        return work()


def test_a_later_qrels_version_changes_the_gold_but_never_a_finished_runs_judgments(study, tmp_path):
    home = copy_warehouse(study.home, tmp_path / "warehouse")
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        ranks_before = con.execute(GOLD_RANKS).fetchall()
        run_id = con.execute("select distinct run_id from marts.fct_dialect_gold_ranks").fetchone()[0]
    # a new version of the qrels: q1 now judges kb-003 relevant, and kb-001 and kb-002 not
    qrels = tmp_path / "test.tsv"
    qrels.write_text(
        (BEIR / "qrels" / "test.tsv")
        .read_text(encoding="utf-8")
        .replace("q1\tkb-001\t2\nq1\tkb-002\t1", "q1\tkb-003\t2"),
        encoding="utf-8",
    )
    assert "q1\tkb-003" in qrels.read_text(encoding="utf-8")
    run_here("ingest", "qrels", str(qrels), "--query-set", "queries:helpdesk_demo_test", "--name", "test", home=home)
    _building(home, lambda: dbt_build(JUDGMENTS_BUILD))
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        gold = con.execute(
            "select pair_id, d.source_doc_id from marts.fct_pair_gold_judgments g"
            " join marts.dim_corpus_documents d on d.split = g.corpus_split and d.doc_id = g.doc_id"
            " where pair_id = 'p1' order by all"
        ).fetchall()
        assert gold == [("p1", "kb-003")]  # the marts decide the new gold ...
        assert _pinned(con) == PINNED  # ... the finished run keeps the judgments it was built with
    # not even a rebuild of the run recomputes its pin (its marts are recomputed from it)
    _building(home, lambda: rebuild_run(run_id))
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        assert _pinned(con) == PINNED
        assert con.execute(GOLD_RANKS).fetchall() == ranks_before


def test_a_warehouse_whose_raw_judgments_hold_the_copied_gold_still_builds_with_the_same_judgments(study, tmp_path):
    """Before issue 51 the retrieval job copied the pairs' gold into raw.retrieval_judgments."""
    home = copy_warehouse(study.home, tmp_path / "warehouse")
    with duckdb.connect(str(home / "warehouse.duckdb")) as con:
        con.execute(
            "insert into raw.retrieval_judgments select run_id, query_set, query_id, doc_id, relevance, qrels_source"
            " from intermediate.int_retrieval_pair_judgments_pinned"
        )
        con.execute("drop table intermediate.int_retrieval_pair_judgments_pinned")  # a warehouse from before the pin
    _building(home, lambda: dbt_build(JUDGMENTS_BUILD))
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        assert _pinned(con) == PINNED  # the copied rows, once each
        assert con.execute("select count(*) from intermediate.int_retrieval_pair_judgments_pinned").fetchone()[0] == 0


def test_recall_and_mcnemar_over_the_corpus_are_the_hand_computed_ones(study):
    recall = {
        (pair_set, variant): (n_queries, n_hits)
        for pair_set, variant, n_queries, n_hits in study.con.execute(
            "select pair_set, variant, n_queries, n_hits from marts.agg_dialect_recall_at_k"
            " where retriever = 'bm25' and k = 1"
        ).fetchall()
    }
    assert recall == {
        ("helpdesk_pairs_by_document", "sae"): (3, 3),
        ("helpdesk_pairs_by_document", "aae"): (3, 1),
        ("helpdesk_pairs_by_query", "sae"): (2, 2),
        ("helpdesk_pairs_by_query", "aae"): (2, 1),
    }
    tests = {
        pair_set: (only_a, only_b, p_exact)
        for pair_set, only_a, only_b, p_exact in study.con.execute(
            "select pair_set, only_a, only_b, p_exact from analysis.dialect_paired_tests"
            " where retriever = 'bm25' and k = 1"
        ).fetchall()
    }
    # two discordant pairs, both SAE-only: exact McNemar p = 2 * 0.5^2; one discordant pair: p = 1
    assert tests == {
        "helpdesk_pairs_by_document": (2, 0, pytest.approx(0.5)),
        "helpdesk_pairs_by_query": (1, 0, pytest.approx(1.0)),
    }


def test_peek_shows_every_relevant_document_of_a_judged_pair(study):
    doc = lambda source_id: _doc_id(study.con, source_id)  # noqa: E731
    shown = run_cli("peek", str(study.toml), "--pair", "p1", "-k", "3", home=study.home).stdout
    assert f"gold document {doc('kb-001')}: To reset your password" in shown
    assert f"gold document {doc('kb-002')}: Two-factor authentication" in shown
    assert f"*  1 doc {doc('kb-002')} " in shown  # the relevant document the SAE query found is marked
