"""Qrels files: TREC, CSV and JSON read alike; bad files refused with file, row and field."""

from __future__ import annotations

import json

import pytest

from ingest.qrels import load_qrels, query_set_table_name, read_qrels
from tests.conftest import raw_fingerprint
from warehouse.errors import InputError, UserError


def _triples(judgments):
    return sorted((j.query_id, j.doc_id, j.relevance) for j in judgments)


EXPECTED = [("1", 10, 2), ("1", 11, 0), ("2", 30, 1)]


def test_trec_csv_and_json_give_the_same_graded_judgments(tmp_path):
    trec = tmp_path / "run.qrels"
    trec.write_text("1 0 10 2\n1 0 11 0\n\n2 Q0 30 1\n")
    csv = tmp_path / "run.csv"
    csv.write_text("query_id,doc_id,relevance\n1,10,2\n1,11,0\n2,30,1\n")
    listed = tmp_path / "listed.json"
    listed.write_text(json.dumps([{"query_id": "1", "doc_id": 10, "relevance": 2},
                                  {"query_id": 1, "doc_id": "11", "relevance": 0},
                                  {"query_id": "2", "doc_id": 30}]))
    nested = tmp_path / "nested.json"
    nested.write_text(json.dumps({"1": {"10": 2, "11": 0}, "2": {"30": 1}}))
    for path in (trec, csv, listed, nested):
        assert _triples(read_qrels(path)) == EXPECTED, path.name


def test_trec_rows_are_file_lines(tmp_path):
    path = tmp_path / "q.trec"
    path.write_text("1 0 10 1\n\n2 0 30 1\n")
    assert [j.row for j in read_qrels(path)] == [1, 3]


@pytest.mark.parametrize(("name", "content", "row", "field", "words"), [
    ("dup.qrels", "1 0 10 1\n2 0 10 1\n1 0 10 2\n", 3, "doc_id", "duplicate judgment for query '1'"),
    ("fields.qrels", "1 0 10 1\n1 10 1\n", 2, "line", "expected 4 fields"),
    ("grade.csv", "query_id,doc_id,relevance\n1,10,high\n", 1, "relevance", "not an integer"),
    ("negative.csv", "query_id,doc_id,relevance\n1,10,1\n2,10,-1\n", 2, "relevance", "below 0"),
    ("doc.json", json.dumps([{"query_id": "1", "doc_id": "d7"}]), 1, "doc_id", "not an integer"),
    ("query.json", json.dumps([{"query_id": " ", "doc_id": 3}]), 1, "query_id", "missing query id"),
])
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


def test_reingest_is_a_no_op_and_a_bad_file_leaves_the_warehouse_unchanged(con, tmp_path):
    path = tmp_path / "judged.csv"
    path.write_text("query_id,doc_id,relevance\n1,10,2\n2,30,1\n")
    first = load_qrels(con, path, query_set="squad_questions:validation")
    again = load_qrels(con, path, query_set="squad_questions:validation")
    assert (first.status, again.status) == ("loaded", "unchanged")
    rows = con.execute("select query_set, query_id, doc_id, relevance, source_row from raw.evaluation_qrels"
                       " order by source_row").fetchall()
    assert rows == [("squad_questions_validation", "1", 10, 2, 1), ("squad_questions_validation", "2", 30, 1, 2)]
    before = raw_fingerprint(con)
    path.write_text("query_id,doc_id,relevance\n1,10,2\n1,10,1\n")
    with pytest.raises(InputError, match="duplicate"):
        load_qrels(con, path, query_set="squad_questions:validation")
    assert raw_fingerprint(con) == before
