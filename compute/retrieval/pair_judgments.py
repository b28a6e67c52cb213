"""The judgments of pairs whose gold is a judged query (``gold_kind = 'query_judgments'``).

Such a pair (ingest/dialect/pair_golds.py) has no single gold document: its gold is every document the
qrels of its query judge. dbt decides which those are (``marts.fct_pair_gold_judgments``, from
``fct_pair_gold_documents``); the retrieval job copies that mart's rows verbatim into the run's
judgments (``raw.retrieval_judgments``, keyed by the pair set and pair id) and the text of the
relevant documents into ``raw.retrieval_relevant_documents``, so the one retrieval-metric chain
(``fct_retrieval_relevant_ranks``) scores every variant of the pair against them, and a later
qrels version never changes the run.
"""

from __future__ import annotations

import pyarrow as pa

from compute.retrieval.runner import Query
from warehouse.transactions import registered


def gold_query_sets(con, pair_sets: list[str]) -> list[str]:
    """The stored names (``queries_<name>``) of the corpus query sets whose queries are these pairs' gold."""
    rows = con.execute(
        "select distinct gold_query_set from marts.fct_pair_gold_documents"
        " where list_contains(?, pair_set) and gold_kind = 'query_judgments' order by 1",
        [pair_sets],
    ).fetchall()
    return [f"queries_{r[0]}" for r in rows]


def record_pair_judgments(con, *, run_id: str, query_sets: dict[str, list[Query]], pair_sets: list[str]) -> int:
    """Copy each asked pair's gold judgments (``marts.fct_pair_gold_judgments``) into the run's judgments.

    Returns the rows written.
    """
    asked = [(name, q.query_id) for name in pair_sets for q in query_sets.get(name, [])]
    if not asked:
        return 0
    asked_table = pa.table({"pair_set": [a[0] for a in asked], "pair_id": [a[1] for a in asked]})
    with registered(con, "_asked_pairs", asked_table):
        written = con.execute(
            """
            insert into raw.retrieval_judgments
            select ?, g.pair_set, g.pair_id, g.doc_id, g.relevance, g.qrels_source
            from marts.fct_pair_gold_judgments g
            inner join (select distinct pair_set, pair_id from _asked_pairs) a using (pair_set, pair_id)
            """,
            [run_id],
        ).fetchone()[0]
        con.execute(
            """
            insert into raw.retrieval_relevant_documents
            select distinct ?, d.split, d.doc_id, d.document_text
            from raw.retrieval_judgments j
            inner join marts.fct_pair_gold_judgments g
                on g.pair_set = j.query_set and g.pair_id = j.query_id and g.doc_id = j.doc_id
            inner join marts.dim_corpus_documents d on d.split = g.corpus_split and d.doc_id = j.doc_id
            where j.run_id = ? and j.relevance > 0
              and not exists (select 1 from raw.retrieval_relevant_documents r
                              where r.run_id = ? and r.corpus_split = d.split and r.doc_id = d.doc_id)
            """,
            [run_id, run_id, run_id],
        )
    return written
