"""A warehouse built before the marts' rename keeps every finished run's rows under the new names."""

from __future__ import annotations

import duckdb
import pytest

from biaswh.warehouse.relations.renamed_marts import RENAMED_MARTS, carry_over_renamed_marts


@pytest.fixture
def old_warehouse():
    """The marts and contract views as code before the rename left them."""
    con = duckdb.connect()
    con.execute("create schema marts")
    con.execute(
        "create table marts.pool_vs_recommended_summary as select 'r1' as run_id, 'age' as feature, 0.5 as bias"
    )
    con.execute("create view main.pool_vs_recommended_summary as select * from marts.pool_vs_recommended_summary")
    con.execute("create table marts.agg_dialect_recall_at_k as select 'r1' as run_id, 5 as k, 0.25 as recall")
    con.execute("create view marts.dialect_recall_at_k as select run_id, recall from marts.agg_dialect_recall_at_k")
    con.execute("create view main.dialect_recall_at_k as select * from marts.dialect_recall_at_k")
    # Runs r1 and r2 in the old table; a build under the new name already wrote r2 and r3.
    runs = "select * from (values {}) as t(run_id, d)"
    con.execute("create table marts.weat_results as " + runs.format("('r1', 0.1::double), ('r2', 0.2)"))
    con.execute("create table marts.fct_weat_results as " + runs.format("('r2', 0.9::double), ('r3', 0.3)"))
    yield con
    con.close()


def _relations(con, schema: str) -> set[str]:
    query = "select table_name from information_schema.tables where table_schema = ?"
    return {r[0] for r in con.execute(query, [schema]).fetchall()}


def test_old_tables_move_to_their_new_names_with_every_run(old_warehouse):
    con = old_warehouse
    moved = carry_over_renamed_marts(con)

    assert moved == ["pool_vs_recommended_summary", "weat_results", "dialect_recall_at_k"]
    assert _relations(con, "marts") == {"fct_recsys_pool_vs_recommended", "agg_dialect_recall_at_k", "fct_weat_results"}
    assert con.execute("select * from marts.fct_recsys_pool_vs_recommended").fetchall() == [("r1", "age", 0.5)]
    # The new table's own row of r2 wins (a build replaced that run); r1 comes over, once.
    assert con.execute("select * from marts.fct_weat_results order by run_id").fetchall() == [
        ("r1", 0.1),
        ("r2", 0.9),
        ("r3", 0.3),
    ]
    # The contract views keep answering under their names, over the renamed marts.
    assert con.execute("select run_id, bias from pool_vs_recommended_summary").fetchall() == [("r1", 0.5)]
    assert con.execute("select k, recall from dialect_recall_at_k").fetchall() == [(5, 0.25)]
    assert carry_over_renamed_marts(con) == [], "a second open has nothing to move"


def test_a_failed_carry_over_leaves_the_warehouse_as_it_was(old_warehouse):
    con = old_warehouse
    con.execute("alter table marts.weat_results add column only_in_the_old_table integer")  # cannot go by name
    with pytest.raises(duckdb.Error):
        carry_over_renamed_marts(con)
    assert {"pool_vs_recommended_summary", "weat_results", "dialect_recall_at_k"} <= _relations(con, "marts")
    assert con.execute("select count(*) from marts.fct_weat_results").fetchone()[0] == 2


def test_every_new_name_is_prefixed_and_no_two_old_names_share_one():
    assert all(new.startswith(("fct_", "dim_", "agg_")) for new in RENAMED_MARTS.values())
    assert len(set(RENAMED_MARTS.values())) == len(RENAMED_MARTS)


def test_analysis_tables_move_and_a_mart_without_runs_gives_way_to_its_rebuilt_table():
    con = duckdb.connect()
    con.execute("create schema marts")
    con.execute("create schema analysis")
    con.execute("create table analysis.retrieval_alerts as select 'r1' as run_id, 'bm25' as retriever")
    con.execute("create view main.retrieval_alerts as select * from analysis.retrieval_alerts")
    # Both qrels marts exist (a build under the new name ran first); neither has runs.
    con.execute("create table marts.fct_retrieval_qrels as select 'q1' as query_id, 1 as relevance")
    con.execute("create table marts.fct_evaluation_qrels as select 'q1' as query_id, 2 as relevance")

    assert carry_over_renamed_marts(con) == ["fct_retrieval_qrels", "analysis.retrieval_alerts"]
    assert _relations(con, "analysis") == {"evaluation_alerts"}
    assert _relations(con, "marts") == {"fct_evaluation_qrels"}
    assert con.execute("select * from marts.fct_evaluation_qrels").fetchall() == [("q1", 2)]
    assert con.execute("select * from retrieval_alerts").fetchall() == [("r1", "bm25")]
    assert con.execute("select * from fct_retrieval_qrels").fetchall() == [("q1", 2)], "the old mart name answers"
