"""The judgments of pairs whose gold is a judged query (``gold_kind = 'query_judgments'``).

Such a pair (ingest/dialect/pair_golds.py) has no single gold document: its gold is every document the
qrels of its query judge. The retrieval job copies those qrels into the run's judgments
(``raw.retrieval_judgments``, keyed by the pair set and pair id) and the text of the relevant
documents into ``raw.retrieval_relevant_documents``, so the one retrieval-metric chain
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
    """Copy the qrels of each asked pair's gold query into the run's judgments; returns the rows written."""
    asked = [(name, q.query_id) for name in pair_sets for q in query_sets.get(name, [])]
    if not asked:
        return 0
    asked_table = pa.table({"pair_set": [a[0] for a in asked], "pair_id": [a[1] for a in asked]})
    with registered(con, "_asked_pairs", asked_table):
        written = con.execute(
            """
            insert into raw.retrieval_judgments
            select distinct ?, p.pair_set, p.pair_id, q.doc_id, q.relevance, q.qrels_source
            from marts.fct_pair_gold_documents p
            inner join (select distinct pair_set, pair_id from _asked_pairs) a using (pair_set, pair_id)
            inner join marts.fct_retrieval_qrels q
                on q.query_set = 'queries_' || p.gold_query_set and q.query_id = p.gold_query_id
            where p.gold_kind = 'query_judgments' and p.mapping_status = 'mapped'
            """,
            [run_id],
        ).fetchone()[0]
        con.execute(
            """
            insert into raw.retrieval_relevant_documents
            select distinct ?, d.split, d.doc_id, d.document_text
            from raw.retrieval_judgments j
            inner join marts.fct_pair_gold_documents p on p.pair_set = j.query_set and p.pair_id = j.query_id
            inner join marts.dim_corpus_documents d on d.split = p.corpus_split and d.doc_id = j.doc_id
            where j.run_id = ? and j.relevance > 0 and p.gold_kind = 'query_judgments'
              and not exists (select 1 from raw.retrieval_relevant_documents r
                              where r.run_id = ? and r.corpus_split = d.split and r.doc_id = d.doc_id)
            """,
            [run_id, run_id, run_id],
        )
    return written
