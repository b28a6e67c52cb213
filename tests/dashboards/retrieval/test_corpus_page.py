"""The corpus page lists pair ids in numeric order when they are numeric."""

from __future__ import annotations

import re

from biaswh.dashboards.common.queries import id_order
from biaswh.dashboards.retrieval.page import render


def test_numeric_ids_sort_as_numbers_and_text_ids_after_them(con):
    con.execute("create table ids as select unnest(['0', '1', '11', '14', '4', '40', '2', 'x7']) as pair_id")
    ordered = [r[0] for r in con.execute(f"select pair_id from ids order by {id_order('pair_id')}").fetchall()]
    assert ordered == ["0", "1", "2", "4", "11", "14", "40", "x7"]


def test_the_corpus_page_lists_changed_queries_by_numeric_pair_id(con):
    con.execute("create schema if not exists marts")
    con.execute(
        "create table marts.dim_source_versions (dataset varchar, source_name varchar, source_version int,"
        " n_rows int, source_sha256 varchar, loaded_at timestamp)"
    )
    con.execute("create table marts.dim_corpus_documents (split varchar, n_questions int)")
    con.execute(
        "create table marts.fct_pair_gold_documents (pair_set varchar, pair_id varchar, source_row int,"
        " gold_kind varchar, corpus_split varchar, squad_idx int, gold_source_doc_id varchar, gold_query_id varchar,"
        " mapping_status varchar)"
    )
    con.execute(
        "create table marts.fct_query_variants as select 'p' as pair_set, pair_id, 'sae' as variant,"
        " 'raw ' || pair_id as query_text_raw, 'clean ' || pair_id as query_text"
        " from (select unnest(['0', '1', '11', '14', '4', '40']) as pair_id)"
    )
    html = render(con)
    assert re.findall(r"<td>clean (\d+)</td>", html) == ["0", "1", "4", "11", "14", "40"]
