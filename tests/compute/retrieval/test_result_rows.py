"""The ``raw.retrieval_results`` rows of one retriever's output: every column's values and types."""

import numpy as np
import pyarrow as pa

from biaswh.compute.retrieval.ranking import QueryHits, no_hits
from biaswh.compute.retrieval.runner import Query, RetrieverOutput
from biaswh.compute.retrieval.writer import RESULT_COLUMNS, result_rows


def _hits(doc_ids, scores):
    return QueryHits(np.asarray(doc_ids, np.int64), np.asarray(scores, np.float64))


def test_result_rows_repeat_the_run_and_each_query_once_per_hit_and_rank_from_one():
    queries = [
        Query("q1", "question", "train", "a"),
        Query("q1", "rewrite", "train", "b"),
        Query("q2", "question", "dev", "c"),
    ]
    output = RetrieverOutput(
        "bm25@k1=2,b=0.75", "bm25", hits=[_hits([7, 3], [2.5, 1.0]), no_hits("empty query"), _hits([9], [0.5])]
    )
    rows = result_rows("run-1", "pairs", queries, output)
    assert rows.column_names == list(RESULT_COLUMNS)
    assert rows.to_pydict() == {
        "run_id": ["run-1"] * 3,
        "query_set": ["pairs"] * 3,
        "retriever": ["bm25@k1=2,b=0.75"] * 3,
        "query_id": ["q1", "q1", "q2"],
        "variant": ["question", "question", "question"],
        "corpus_split": ["train", "train", "dev"],
        "rank": [1, 2, 1],
        "doc_id": [7, 3, 9],
        "score": [2.5, 1.0, 0.5],
    }
    assert [rows.schema.field(c).type for c in ("run_id", "query_set", "retriever")] == [pa.string()] * 3
    assert (rows.schema.field("rank").type, rows.schema.field("doc_id").type) == (pa.int32(), pa.int32())


def test_result_rows_of_an_output_without_hits_are_none_with_the_same_columns():
    queries = [Query("q1", "question", "train", "")]
    rows = result_rows("run-1", "pairs", queries, RetrieverOutput("bm25", "bm25", hits=[no_hits("empty query")]))
    assert rows.num_rows == 0
    assert rows.column_names == list(RESULT_COLUMNS)
    assert rows.schema.field("run_id").type == pa.string()
