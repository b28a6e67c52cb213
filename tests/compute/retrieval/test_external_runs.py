"""Runs written elsewhere: TREC run files and BEIR-style JSON results as one system's hits."""

from __future__ import annotations

import json

import pytest

from biaswh.compute.retrieval.external_runs import NOT_IN_RUN, read_external_run
from biaswh.compute.retrieval.runner import Query
from biaswh.warehouse.errors import InputError

QUERIES = [Query(q, "question", "c", f"text of {q}") for q in ("q1", "q2", "q3")]
DOC_IDS = {"kb-a": 0, "kb-b": 1, "kb-c": 2}


def _read(path, **options):
    return read_external_run(path, system="prod", queries=QUERIES, doc_ids=DOC_IDS, depth=2, **options)


def test_trec_and_json_give_the_same_ranking_cut_at_depth(tmp_path):
    trec = tmp_path / "week.trec"
    trec.write_text(
        "q1 Q0 kb-c 2 5.0 prod\nq1 Q0 kb-a 1 9.0 prod\n\nq1 Q0 kb-b 3 1.0 prod\nq2/question Q0 kb-b 1 3 prod\n"
    )
    results = tmp_path / "week.json"
    results.write_text(json.dumps({"q1": {"kb-b": 1.0, "kb-c": 5.0, "kb-a": 9.0}, "q2": {"kb-b": 3}}))
    for path in (trec, results):
        output = _read(path)
        assert (output.retriever, output.family) == ("prod", "external")
        assert [list(h.doc_ids) for h in output.hits] == [[0, 2], [1], []], path.name
        assert output.hits[2].reason == NOT_IN_RUN


def test_json_ties_are_broken_by_document_id(tmp_path):
    path = tmp_path / "ties.json"
    path.write_text(json.dumps({"q1": {"kb-c": 1.0, "kb-b": 1.0, "kb-a": 0.5}}))
    assert list(_read(path).hits[0].doc_ids) == [1, 2]


@pytest.mark.parametrize(
    ("content", "message", "row", "field"),
    [
        ("q1 Q0 kb-a 1 1.0 prod\nq9 Q0 kb-a 1 1.0 prod\n", "query 'q9' is not in the evaluated query set", 2, "qid"),
        ("q1 Q0 kb-a 1 1.0 prod\n\nq1 Q0 kb-zz 2 0.5 prod\n", "document 'kb-zz' is not in the corpus", 3, "docid"),
        ("q1 Q0 kb-a 1 1.0 prod\nq1 Q0 kb-a 2 0.5 prod\n", "listed twice", 2, "docid"),
    ],
)
def test_unknown_or_repeated_ids_are_refused_with_line_and_field(tmp_path, content, message, row, field):
    path = tmp_path / "bad.trec"
    path.write_text(content)
    with pytest.raises(InputError, match=message) as caught:
        _read(path)
    assert (caught.value.row, caught.value.field) == (row, field)


def test_a_system_cannot_take_the_name_of_our_retrievers(tmp_path):
    path = tmp_path / "r.trec"
    path.write_text("q1 Q0 kb-a 1 1.0 bm25\n")
    with pytest.raises(InputError, match="one of our retrievers"):
        read_external_run(path, system="bm25", queries=QUERIES, doc_ids=DOC_IDS, depth=2)
