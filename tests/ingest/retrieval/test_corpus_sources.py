"""Corpora, query sets and qrels of any layout: BEIR, MS MARCO TSV, named columns, text folders."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from biaswh.ingest.evaluation.qrels import load_qrels
from biaswh.ingest.retrieval.corpus import load_corpus, load_corpus_queries
from biaswh.ingest.retrieval.corpus_readers import read_documents, read_queries
from biaswh.warehouse.errors import InputError, UserError
from tests.fingerprints import raw_fingerprint


def _beir(folder):
    """A small BEIR folder written by us: string ids, titles, graded qrels under a header."""
    folder.mkdir()
    (folder / "corpus.jsonl").write_text(
        "\n".join(
            json.dumps(d)
            for d in [
                {"_id": "doc-a", "title": "Alpha", "text": "alpha text"},
                {"_id": "doc-b", "title": "", "text": "beta text"},
                {"_id": "7", "title": "Seven", "text": "seven text"},
            ]
        )
    )
    (folder / "queries.jsonl").write_text(
        json.dumps({"_id": "q1", "text": "what is alpha"}) + "\n" + json.dumps({"_id": "q2", "text": "seven?"}) + "\n"
    )
    (folder / "qrels").mkdir()
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\tdoc-a\t2\nq1\tdoc-b\t0\nq2\t7\t1\n")
    return folder


def test_a_beir_folder_loads_with_its_own_ids_and_graded_qrels(con, tmp_path):
    folder = _beir(tmp_path / "scifact")
    corpus = load_corpus(con, folder)
    assert (corpus.source_name, corpus.rows, corpus.status) == ("scifact", 3, "loaded")
    queries = load_corpus_queries(con, folder, corpus="scifact", name="scifact_test")
    assert queries.rows == 2
    load_qrels(con, folder / "qrels" / "test.tsv", query_set="queries:scifact_test")
    assert con.execute(
        "select doc_id, source_doc_id, title, document_text from raw.corpus_documents order by doc_id"
    ).fetchall() == [
        (0, "doc-a", "Alpha", "alpha text"),
        (1, "doc-b", "", "beta text"),
        (2, "7", "Seven", "seven text"),
    ]
    assert con.execute(
        "select query_set, query_id, doc_id, relevance from raw.evaluation_qrels order by source_row"
    ).fetchall() == [
        ("queries_scifact_test", "q1", 0, 2),
        ("queries_scifact_test", "q1", 1, 0),
        ("queries_scifact_test", "q2", 2, 1),
    ]
    # the same content again is a no-op
    assert load_corpus(con, folder).status == "unchanged"


def test_tsv_named_columns_and_parquet_read_alike(tmp_path):
    tsv = tmp_path / "collection.tsv"
    tsv.write_text("10\tfirst passage\n\n11\tsecond passage\n")
    csv = tmp_path / "docs.csv"
    csv.write_text("pid,body\n10,first passage\n11,second passage\n")
    parquet = tmp_path / "docs.parquet"
    pq.write_table(pa.table({"pid": [10, 11], "body": ["first passage", "second passage"]}), parquet)
    expected = [("10", "first passage"), ("11", "second passage")]
    assert [(d.source_id, d.text) for d in read_documents(tsv)] == expected
    for path in (csv, parquet):
        assert [(d.source_id, d.text) for d in read_documents(path, id_column="pid", text_column="body")] == expected
    assert [d.row for d in read_documents(tsv)] == [1, 3]


def test_a_text_folder_is_cut_per_file_line_or_heading(tmp_path):
    notes = tmp_path / "notes"
    (notes / "sub").mkdir(parents=True)
    (notes / "a.md").write_text("intro line\n\n# Setup\ninstall it\n\n## Setup\nagain\n")
    (notes / "sub" / "b.txt").write_text("just text\n")
    (notes / "ignored.png").write_bytes(b"\x89PNG")
    per_file = read_documents(notes, unit="file")
    assert [(d.source_id, d.title) for d in per_file] == [("a.md", "Setup"), ("sub/b.txt", "b")]
    per_line = read_documents(notes, unit="line")
    assert [d.source_id for d in per_line] == ["a.md:1", "a.md:3", "a.md:4", "a.md:6", "a.md:7", "sub/b.txt:1"]
    per_heading = read_documents(notes, unit="heading")
    assert [(d.source_id, d.text) for d in per_heading] == [
        ("a.md#preamble", "intro line"),
        ("a.md#setup", "Setup\ninstall it"),
        ("a.md#setup-2", "Setup\nagain"),
        ("sub/b.txt#preamble", "just text"),
    ]


def test_markdown_gold_questions_become_queries(tmp_path):
    path = tmp_path / "gold.md"
    path.write_text(
        '# Gold\n\n### Query 1: Drop\n\n**Query:** "Why did it drop?"\n\n- detail\n\n'
        '### Query 12: Other\n**Query:** "What changed?"\n\n## Notes\nno query here\n'
    )
    assert [(q.source_id, q.text) for q in read_queries(path)] == [("1", "Why did it drop?"), ("12", "What changed?")]


@pytest.mark.parametrize(
    ("name", "content", "message", "row", "field"),
    [
        ("dup.jsonl", '{"_id": "a", "text": "x"}\n{"_id": "a", "text": "y"}\n', "listed twice", 2, "id"),
        ("empty.jsonl", '{"_id": "a", "text": "  "}\n', "empty text", 1, "text"),
        ("noid.jsonl", '{"_id": "a", "text": "x"}\n{"text": "y"}\n', "missing '_id'", 2, "_id"),
        ("bad.tsv", "a\tx\nno tab here\n", "id<TAB>text", 2, "line"),
    ],
)
def test_bad_documents_are_refused_with_file_row_and_field(tmp_path, name, content, message, row, field):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(InputError, match=message) as caught:
        read_documents(path)
    assert (caught.value.row, caught.value.field) == (row, field)
    assert name in str(caught.value)


def test_a_qrel_naming_an_unknown_document_or_query_stores_nothing(con, tmp_path):
    folder = _beir(tmp_path / "beir")
    load_corpus(con, folder, name="c")
    load_corpus_queries(con, folder, corpus="c", name="qs")
    before = raw_fingerprint(con)
    bad_doc = tmp_path / "bad_doc.tsv"
    bad_doc.write_text("q1\tdoc-a\t1\nq1\tdoc-zz\t1\n")
    with pytest.raises(InputError, match="'doc-zz' is not in corpus 'c'") as caught:
        load_qrels(con, bad_doc, query_set="queries:qs")
    assert (caught.value.row, caught.value.field) == (2, "doc_id")
    bad_query = tmp_path / "bad_query.tsv"
    bad_query.write_text("q9\tdoc-a\t1\n")
    with pytest.raises(InputError, match="query 'q9' is not in query set queries:qs"):
        load_qrels(con, bad_query, query_set="queries:qs")
    assert raw_fingerprint(con) == before


def test_queries_need_their_corpus_and_a_corpus_never_takes_a_squad_name(con, tmp_path):
    folder = _beir(tmp_path / "beir")
    with pytest.raises(UserError, match="corpus 'nope', which is not ingested"):
        load_corpus_queries(con, folder, corpus="nope")
    con.execute("insert into raw.source_versions values ('squad', 'train', 1, 'x', 'p', 'r', 1, now()::timestamp)")
    with pytest.raises(UserError, match="SQuAD dataset's name"):
        load_corpus(con, folder, name="train")
