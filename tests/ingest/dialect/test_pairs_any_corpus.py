"""Pairs whose gold is a corpus document or a judged query (ingest/dialect/pair_golds.py)."""

import pytest

from biaswh.ingest.dialect.pairs import load_pairs
from biaswh.ingest.evaluation.qrels import load_qrels
from biaswh.ingest.retrieval.corpus import load_corpus, load_corpus_queries
from biaswh.warehouse.errors import InputError, UserError
from tests.conftest import DEMO_DATA
from tests.fingerprints import raw_fingerprint

BEIR = DEMO_DATA / "beir_demo"


@pytest.fixture
def corpus_loaded(con):
    load_corpus(con, BEIR, name="helpdesk")
    load_corpus_queries(con, BEIR, name="helpdesk_test", corpus="helpdesk")
    load_qrels(con, BEIR / "qrels" / "test.tsv", query_set="queries:helpdesk_test")
    return con


def _pairs(tmp_path, header: str, *rows: str) -> str:
    path = tmp_path / "pairs.csv"
    path.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    return str(path)


def _gold_rows(con, pair_set: str) -> list[tuple]:
    return con.execute(
        "select pair_id, variant, gold_kind, corpus, squad_split, squad_idx, gold_source_doc_id, gold_query_set,"
        " gold_query_id from raw.query_pair_variants where pair_set = ? order by pair_id, variant",
        [pair_set],
    ).fetchall()


def test_a_pair_names_its_gold_as_a_corpus_document_by_source_id(corpus_loaded):
    result = load_pairs(corpus_loaded, BEIR / "dialect_pairs_by_document.csv", corpus="helpdesk", name="by_doc")
    assert result.rows == 20
    rows = _gold_rows(corpus_loaded, "by_doc")
    assert rows[0] == ("1", "aae", "corpus_document", "helpdesk", None, None, "kb-001", None, None)
    assert {r[6] for r in rows} == {f"kb-{n:03d}" for n in (1, 3, 4, 5, 6, 8, 9, 10, 11, 12)}


def test_a_pair_names_its_gold_as_a_judged_query(corpus_loaded):
    load_pairs(corpus_loaded, BEIR / "dialect_pairs_by_query.csv", query_set="queries:helpdesk_test", name="by_q")
    rows = _gold_rows(corpus_loaded, "by_q")
    assert rows[0] == ("1", "aae", "query_judgments", "helpdesk", None, None, None, "helpdesk_test", "q1")
    assert len(rows) == 12


BAD_GOLDS = [
    ({"corpus": "helpdesk"}, "id,gold_doc_id,sae_query,aave_query", "1,kb-999,a,b", "document 'kb-999' is not in"),
    ({"corpus": "helpdesk"}, "id,gold_doc_id,sae_query,aave_query", "1,,a,b", "missing gold_doc_id"),
    (
        {"corpus": "helpdesk", "gold_doc_id_column": "doc"},
        "id,doc,sae_query,aave_query",
        "1,q1,a,b",  # a query id is not a document id
        "document 'q1' is not in corpus 'helpdesk'",
    ),
    (
        {"query_set": "queries:helpdesk_test"},
        "id,gold_query_id,sae_query,aave_query",
        "1,q9,a,b",
        "query 'q9' is not a query of query set queries:helpdesk_test with a relevant judgment",
    ),
]


@pytest.mark.parametrize(("options", "header", "row", "reason"), BAD_GOLDS)
def test_an_unknown_gold_is_refused_with_file_row_and_field_and_changes_nothing(
    corpus_loaded, tmp_path, options, header, row, reason
):
    good_row = "0,q1,ok,fine" if "query_set" in options else "0,kb-001,ok,fine"
    path = _pairs(tmp_path, header, good_row, row)
    before = raw_fingerprint(corpus_loaded)
    with pytest.raises(InputError) as error:
        load_pairs(corpus_loaded, path, **options)
    message = str(error.value)
    field = header.split(",")[1]
    assert message.startswith(path) and reason in message
    assert "row 2" in message and f"field '{field}'" in message
    assert raw_fingerprint(corpus_loaded) == before


def test_a_query_without_a_relevant_judgment_cannot_be_a_gold(con, tmp_path):
    load_corpus(con, BEIR, name="helpdesk")
    load_corpus_queries(con, BEIR, name="helpdesk_test", corpus="helpdesk")
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("query-id\tcorpus-id\tscore\nq1\tkb-001\t2\nq2\tkb-003\t0\n", encoding="utf-8")
    load_qrels(con, qrels, query_set="queries:helpdesk_test")
    path = _pairs(tmp_path, "id,gold_query_id,sae_query,aave_query", "1,q1,a,b", "2,q2,c,d")
    with pytest.raises(InputError, match="query 'q2' is not a query of query set"):
        load_pairs(con, path, query_set="queries:helpdesk_test")


def test_the_gold_source_must_be_ingested_first_and_named_once(con, corpus_loaded, tmp_path):
    path = _pairs(tmp_path, "id,gold_doc_id,sae_query,aave_query", "1,kb-001,a,b")
    with pytest.raises(UserError, match="corpus 'elsewhere'.*not ingested"):
        load_pairs(corpus_loaded, path, corpus="elsewhere")
    with pytest.raises(UserError, match="not both"):
        load_pairs(corpus_loaded, path, corpus="helpdesk", query_set="queries:helpdesk_test")
    with pytest.raises(UserError, match="must be 'queries:<name>'"):
        load_pairs(corpus_loaded, path, query_set="helpdesk_test")
