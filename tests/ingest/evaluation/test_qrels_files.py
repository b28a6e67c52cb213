"""Qrels files: TREC, CSV and JSON read alike; bad files refused with file, row and field."""

from __future__ import annotations

import json

import pytest

from biaswh.ingest.dialect.pairs import load_pairs
from biaswh.ingest.evaluation.qrels import load_qrels, read_qrels
from biaswh.ingest.retrieval.query_set_members import query_set_table_name
from biaswh.ingest.retrieval.squad import load_squad
from biaswh.warehouse.errors import InputError, UserError
from tests.conftest import DEMO_DATA
from tests.fingerprints import raw_fingerprint


def _triples(judgments):
    return sorted((j.query_id, j.doc_id, j.relevance) for j in judgments)


EXPECTED = [("1", 10, 2), ("1", 11, 0), ("2", 30, 1)]


def test_trec_csv_and_json_give_the_same_graded_judgments(tmp_path):
    trec = tmp_path / "run.qrels"
    trec.write_text("1 0 10 2\n1 0 11 0\n\n2 Q0 30 1\n")
    csv = tmp_path / "run.csv"
    csv.write_text("query_id,doc_id,relevance\n1,10,2\n1,11,0\n2,30,1\n")
    listed = tmp_path / "listed.json"
    listed.write_text(
        json.dumps(
            [
                {"query_id": "1", "doc_id": 10, "relevance": 2},
                {"query_id": 1, "doc_id": "11", "relevance": 0},
                {"query_id": "2", "doc_id": 30},
            ]
        )
    )
    nested = tmp_path / "nested.json"
    nested.write_text(json.dumps({"1": {"10": 2, "11": 0}, "2": {"30": 1}}))
    for path in (trec, csv, listed, nested):
        assert _triples(read_qrels(path)) == EXPECTED, path.name


def test_trec_rows_are_file_lines(tmp_path):
    path = tmp_path / "q.trec"
    path.write_text("1 0 10 1\n\n2 0 30 1\n")
    assert [j.row for j in read_qrels(path)] == [1, 3]


@pytest.mark.parametrize(
    ("name", "content", "row", "field", "words"),
    [
        ("dup.qrels", "1 0 10 1\n2 0 10 1\n1 0 10 2\n", 3, "doc_id", "duplicate judgment for query '1'"),
        ("fields.qrels", "1 0 10 1\n1 10 1\n", 2, "line", "expected 4 fields"),
        ("grade.csv", "query_id,doc_id,relevance\n1,10,high\n", 1, "relevance", "not an integer"),
        ("negative.csv", "query_id,doc_id,relevance\n1,10,1\n2,10,-1\n", 2, "relevance", "below 0"),
        ("doc.json", json.dumps([{"query_id": "1", "doc_id": "d7"}]), 1, "doc_id", "not an integer"),
        ("query.json", json.dumps([{"query_id": " ", "doc_id": 3}]), 1, "query_id", "missing query id"),
    ],
)
def test_bad_qrels_name_file_row_and_field(tmp_path, name, content, row, field, words):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(InputError) as caught:
        read_qrels(path)
    assert (caught.value.row, caught.value.field) == (row, field)
    assert str(path) in str(caught.value) and words in str(caught.value)


def test_csv_without_doc_id_column_is_refused(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text("query,doc_id\n1,2\n")
    with pytest.raises(InputError, match="query_id"):
        read_qrels(path)


def test_unknown_query_set_syntax_is_refused():
    assert query_set_table_name("squad_questions:validation") == "squad_questions_validation"
    assert query_set_table_name("pairs:demo") == "demo"
    with pytest.raises(UserError, match="squad_questions"):
        query_set_table_name("validation")


@pytest.fixture
def squad_con(con):
    """A warehouse holding the demo SQuAD file as dataset 'validation' (64 questions, 28 documents)."""
    load_squad(con, str(DEMO_DATA / "squad_demo.json"), split="validation")
    return con


def test_reingest_is_a_no_op_and_a_bad_file_leaves_the_warehouse_unchanged(squad_con, tmp_path):
    con = squad_con
    path = tmp_path / "judged.csv"
    path.write_text("query_id,doc_id,relevance\n1,10,2\n2,20,1\n")
    first = load_qrels(con, path, query_set="squad_questions:validation")
    again = load_qrels(con, path, query_set="squad_questions:validation")
    assert (first.status, again.status) == ("loaded", "unchanged")
    rows = con.execute(
        "select query_set, query_id, doc_id, relevance, source_row from raw.evaluation_qrels order by source_row"
    ).fetchall()
    assert rows == [("squad_questions_validation", "1", 10, 2, 1), ("squad_questions_validation", "2", 20, 1, 2)]
    before = raw_fingerprint(con)
    path.write_text("query_id,doc_id,relevance\n1,10,2\n1,10,1\n")
    with pytest.raises(InputError, match="duplicate"):
        load_qrels(con, path, query_set="squad_questions:validation")
    assert raw_fingerprint(con) == before


@pytest.mark.parametrize(
    ("content", "row", "field", "message"),
    [
        ("query_id,doc_id\n0,0\n64,1\n", 2, "query_id", "query '64' is not in query set squad_questions:validation"),
        ("query_id,doc_id\n0,0\nq7,1\n", 2, "query_id", "query 'q7' is not in query set"),
        ("query_id,doc_id\n0,0\n1,27\n2,28\n", 3, "doc_id", "document 28 is not in the corpus"),
    ],
)
def test_unknown_ids_are_refused_before_anything_is_stored(squad_con, tmp_path, content, row, field, message):
    con = squad_con
    path = tmp_path / "judged.csv"
    path.write_text(content)
    before = raw_fingerprint(con)
    with pytest.raises(InputError) as caught:
        load_qrels(con, path, query_set="squad_questions:validation")
    assert (caught.value.row, caught.value.field) == (row, field) and message in str(caught.value)
    assert str(path) in str(caught.value)
    assert raw_fingerprint(con) == before  # never a version, not even a failed run


def test_ids_are_checked_against_the_latest_version_of_the_squad_dataset(squad_con, tmp_path):
    con = squad_con
    smaller = tmp_path / "smaller.json"
    document = json.loads((DEMO_DATA / "squad_demo.json").read_text(encoding="utf-8"))
    document["data"] = document["data"][:1]
    smaller.write_text(json.dumps(document), encoding="utf-8")
    load_squad(con, str(smaller), split="validation")  # version 2: fewer questions and documents
    n_questions = con.execute("select count(*) from raw.squad_questions where source_version = 2").fetchone()[0]
    path = tmp_path / "judged.csv"
    path.write_text(f"query_id,doc_id\n0,0\n{n_questions},0\n")
    with pytest.raises(InputError, match="is not in query set"):
        load_qrels(con, path, query_set="squad_questions:validation")


def test_qrels_for_a_dataset_not_ingested_say_to_ingest_it_first(con, tmp_path):
    path = tmp_path / "judged.csv"
    path.write_text("query_id,doc_id\n0,0\n")
    before = raw_fingerprint(con)
    with pytest.raises(UserError, match="SQuAD dataset 'validation', which is not ingested: ingest it first"):
        load_qrels(con, path, query_set="squad_questions:validation")
    with pytest.raises(UserError, match="pair set 'demo', which is not ingested: ingest it first"):
        load_qrels(con, path, query_set="pairs:demo")
    assert raw_fingerprint(con) == before


def test_pair_qrels_are_checked_against_the_pair_ids_and_the_corpus_they_index(squad_con, tmp_path):
    con = squad_con
    load_pairs(con, DEMO_DATA / "dialect_pairs_demo.csv", name="demo", squad_split="validation")
    pair_id = con.execute("select min(pair_id) from raw.query_pair_variants").fetchone()[0]
    path = tmp_path / "judged.csv"
    path.write_text(f"query_id,doc_id\n{pair_id},27\n")
    assert load_qrels(con, path, query_set="pairs:demo").status == "loaded"
    path.write_text(f"query_id,doc_id\n{pair_id},28\n")
    with pytest.raises(InputError, match="document 28 is not in the corpus of query set pairs:demo"):
        load_qrels(con, path, query_set="pairs:demo")
    path.write_text("query_id,doc_id\nno-such-pair,0\n")
    with pytest.raises(InputError, match="query 'no-such-pair' is not in query set pairs:demo"):
        load_qrels(con, path, query_set="pairs:demo")
