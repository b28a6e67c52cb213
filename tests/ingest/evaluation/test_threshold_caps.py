"""Alert thresholds: the judgments cap precision@k and recall@k; a threshold above the cap is flagged."""

from __future__ import annotations

import pytest

from biaswh.ingest.evaluation.thresholds import max_achievable, read_thresholds


@pytest.fixture
def judged(con):
    """Query 1 has 1 relevant document, query 2 has 2, query 3 only a grade-0 judgment (not evaluated)."""
    con.execute("create schema if not exists marts")
    con.execute(
        "create table marts.fct_evaluation_qrels (query_set varchar, query_id varchar, doc_id integer,"
        " relevance integer)"
    )
    con.execute(
        "insert into marts.fct_evaluation_qrels values ('qs', '1', 10, 1), ('qs', '2', 20, 2),"
        " ('qs', '2', 21, 1), ('qs', '3', 30, 0), ('other', '1', 99, 1)"
    )
    return con


def test_precision_at_k_is_capped_by_the_relevant_documents_per_query(judged):
    # a perfect ranking: P@5 = (1/5 + 2/5) / 2 = 0.3; R@1 = (1/1 + 1/2) / 2 = 0.75
    assert max_achievable(judged, "qs", ["1", "2", "3"], "precision", 5) == pytest.approx(0.3)
    assert max_achievable(judged, "qs", ["1", "2", "3"], "recall", 1) == pytest.approx(0.75)
    assert max_achievable(judged, "qs", ["1", "2"], "recall", 5) is None  # 1.0: no cap
    assert max_achievable(judged, "qs", ["1"], "mrr", 10) is None


def test_the_seeded_thresholds_can_all_clear_on_single_relevant_document_judgments(judged):
    for metric, k, _, direction, threshold, *_ in read_thresholds():
        cap = max_achievable(judged, "qs", ["1"], metric, k)
        assert direction != "below" or cap is None or threshold <= cap, (metric, k, threshold, cap)
