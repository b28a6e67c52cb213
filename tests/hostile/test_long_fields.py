"""Hostile sizes: a CSV field longer than the csv module's default 131,072 characters.

A 150 KB document, query or qrels field loads from CSV as it does from JSONL (the limit rose
to the file's size); before, the csv module's ``field larger than field limit`` ended ingest
with a traceback.
"""

from __future__ import annotations

import csv

import pytest

from biaswh.warehouse.database.connection import connect
from tests.conftest import run_here

LONG = 150_000


@pytest.fixture(autouse=True)
def default_field_limit():
    """Each test starts from the csv module's default limit (another test may have raised it)."""
    previous = csv.field_size_limit(131_072)
    yield
    csv.field_size_limit(previous)


def _write(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def test_long_document_query_and_qrels_fields_load_from_csv(tmp_path):
    home = tmp_path / "warehouse"
    long_text = "word " * (LONG // 5)
    corpus = _write(tmp_path / "corpus.csv", ["id", "text"], [["d1", long_text], ["d2", "a short one"]])
    queries = _write(tmp_path / "queries.csv", ["id", "text"], [["q1", "long " + long_text], ["q2", "short"]])
    qrels = _write(tmp_path / "qrels.csv", ["query_id", "doc_id", "relevance", "note"], [["q1", "d1", 1, long_text]])
    run_here("ingest", "corpus", str(corpus), "--name", "long", "--id-column", "id", home=home)
    run_here("ingest", "corpus-queries", str(queries), "--corpus", "long", "--id-column", "id", home=home)
    completed = run_here("ingest", "qrels", str(qrels), "--query-set", "queries:queries", home=home)
    assert "Traceback" not in completed.stderr
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BIASWH_HOME", str(home))
        connection = connect(read_only=True)
        try:
            lengths = connection.execute("select max(length(document_text)) from raw.corpus_documents").fetchone()
            judgments = connection.execute("select count(*) from raw.evaluation_qrels").fetchone()
        finally:
            connection.close()
    assert lengths[0] >= LONG - 5 and judgments[0] == 1
