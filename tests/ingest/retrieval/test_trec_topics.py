"""TREC topics files as corpus query sets (ingest/retrieval/trec_topics.py)."""

import pytest

from biaswh.ingest.evaluation.qrels import load_qrels
from biaswh.ingest.retrieval.corpus import load_corpus, load_corpus_queries
from biaswh.warehouse.errors import InputError
from tests.conftest import DEMO_DATA
from tests.fingerprints import raw_fingerprint

TOPICS = """<top>
<num> Number: 301
<title> reset my password

<desc> Description:
How does a user reset a forgotten
password?

<narr> Narrative:
A relevant document explains the reset steps.
</top>

<top>
<num> Number: 302 </num>
<title> invoices </title>
<desc> Description: When are invoices issued? </desc>
</top>
"""


@pytest.fixture
def corpus_loaded(con):
    load_corpus(con, DEMO_DATA / "beir_demo", name="helpdesk")
    return con


def _queries(con, name: str) -> list[tuple]:
    return con.execute(
        "select source_row, query_id, query_text from raw.corpus_queries where query_set = ? order by source_row",
        [name],
    ).fetchall()


def test_a_topics_file_is_read_without_being_told_and_its_numbers_are_the_ids(corpus_loaded, tmp_path):
    path = tmp_path / "topics.301-302.txt"
    path.write_text(TOPICS, encoding="utf-8")
    result = load_corpus_queries(corpus_loaded, path, corpus="helpdesk", name="topics")
    assert result.rows == 2
    assert _queries(corpus_loaded, "topics") == [(1, "301", "reset my password"), (13, "302", "invoices")]


def test_the_description_can_be_the_query_and_trec_qrels_name_topics(corpus_loaded, tmp_path):
    path = tmp_path / "topics"
    path.write_text(TOPICS, encoding="utf-8")
    load_corpus_queries(corpus_loaded, path, corpus="helpdesk", name="desc", format="trec_topics", topic_field="desc")
    assert [q[2] for q in _queries(corpus_loaded, "desc")] == [
        "How does a user reset a forgotten password?",
        "When are invoices issued?",
    ]
    qrels = tmp_path / "qrels.trec"
    qrels.write_text("301 0 kb-001 2\n302 0 kb-003 1\n", encoding="utf-8")
    load_qrels(corpus_loaded, qrels, query_set="queries:desc")
    judged = corpus_loaded.execute(
        "select query_id, relevance from raw.evaluation_qrels where query_set = 'queries_desc' order by 1"
    ).fetchall()
    assert judged == [("301", 2), ("302", 1)]


BAD_TOPICS = [
    ("<top>\n<title> no number\n</top>\n", "row 1, field 'num'", "topic without a <num>"),
    ("<top>\n<num> Number: 7\n<desc> only a description\n</top>\n", "row 1, field 'title'", "has no <title> text"),
    (
        "<top><num> Number: 7 <title> a </top>\n<top><num> Number: 7 <title> b </top>\n",
        "row 2, field 'id'",
        "listed twice",
    ),
]


@pytest.mark.parametrize(("content", "location", "reason"), BAD_TOPICS)
def test_a_bad_topic_is_refused_with_file_line_and_field(corpus_loaded, tmp_path, content, location, reason):
    path = tmp_path / "bad.topics"
    path.write_text(content, encoding="utf-8")
    before = raw_fingerprint(corpus_loaded)
    with pytest.raises(InputError) as error:
        load_corpus_queries(corpus_loaded, path, corpus="helpdesk", format="trec_topics")
    assert str(error.value).startswith(str(path)) and location in str(error.value) and reason in str(error.value)
    assert raw_fingerprint(corpus_loaded) == before
