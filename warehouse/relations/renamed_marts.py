"""Marts and analysis tables renamed after warehouses were built under their old names, carried
over on opening.

A run-keyed mart is incremental and never fully refreshed: its rows are the finished runs'
results, and a build adds or replaces only the runs it computes; an analysis table keeps each
analysed run's rows the same way. Built under a new name it would start empty, and every
earlier run's rows would stay behind in the old table, unseen by everything that reads the new
name. So a writing open renames the old table first (before any dbt build or analysis of that
process sees the warehouse), and points a ``main.*`` view of the old name at the new table at
once, so the old name still answers for one release (the pipeline re-publishes the contract
views with their comments later).
"""

from __future__ import annotations

from typing import Collection

import duckdb

# old mart name -> new name (every mart is fct_/dim_/agg_).
RENAMED_MARTS: dict[str, str] = {
    "pool_vs_recommended_summary": "fct_recsys_pool_vs_recommended",
    "recsys_bias_aggregated": "agg_recsys_bias",
    "recsys_directional_bias_aggregated": "agg_recsys_directional_bias",
    "recsys_effect_sizes_aggregated": "agg_recsys_effect_sizes",
    "recsys_feature_importance_aggregated": "agg_recsys_feature_importance",
    "weat_results": "fct_weat_results",
    # Was a view (a projection of agg_dialect_recall_at_k for the contract); it holds no rows.
    "dialect_recall_at_k": "agg_dialect_recall_at_k",
    # The evaluation family's marts took its name (they were *_retrieval_*, in marts/evaluation);
    # the old names stay views in main until 0.2.
    "fct_retrieval_qrels": "fct_evaluation_qrels",
    "fct_retrieval_relevant_ranks": "fct_evaluation_relevant_ranks",
    "fct_retrieval_query_metrics": "fct_evaluation_query_metrics",
    "agg_retrieval_metrics_at_k": "agg_evaluation_metrics_at_k",
    "fct_retrieval_top_scores": "fct_evaluation_top_scores",
    "fct_retrieval_query_latency": "fct_evaluation_query_latency",
    "agg_retrieval_latency": "agg_evaluation_latency",
    "fct_retrieval_overlap": "fct_evaluation_overlap",
    "agg_retrieval_overlap": "agg_evaluation_overlap",
    "agg_retrieval_fusion_sweep": "agg_evaluation_fusion_sweep",
    "fct_retrieval_fusion_choice": "fct_evaluation_fusion_choice",
    "fct_retrieval_alert_checks": "fct_evaluation_alert_checks",
}

# old analysis table -> new name: the evaluation analysis writes analysis.evaluation_*.
RENAMED_ANALYSIS_TABLES: dict[str, str] = {
    "retrieval_metrics_at_k": "evaluation_metrics_at_k",
    "retrieval_alerts": "evaluation_alerts",
    "retrieval_system_comparisons": "evaluation_system_comparisons",
}

# old seed -> new name (a seed is loaded whole by every build that selects it; the old copy goes).
RENAMED_SEEDS: dict[str, str] = {"retrieval_alert_thresholds": "evaluation_alert_thresholds"}

# schema -> {old name: new name}
RENAMED_RELATIONS: dict[str, dict[str, str]] = {
    "marts": RENAMED_MARTS,
    "analysis": RENAMED_ANALYSIS_TABLES,
    "staging": RENAMED_SEEDS,
}


def _kind(con: duckdb.DuckDBPyConnection, schema: str, name: str) -> str | None:
    row = con.execute(
        "select table_type from information_schema.tables where table_schema = ? and table_name = ?", [schema, name]
    ).fetchone()
    return row[0] if row else None


def _has_runs(con: duckdb.DuckDBPyConnection, schema: str, name: str) -> bool:
    query = "select 1 from information_schema.columns where table_schema = ? and table_name = ? and column_name = ?"
    return con.execute(query, [schema, name, "run_id"]).fetchone() is not None


def _move(con: duckdb.DuckDBPyConnection, schema: str, old: str, new: str) -> None:
    """Rename ``schema.old`` to ``new``, or copy its runs into an existing ``new`` and drop it."""
    if _kind(con, schema, old) == "VIEW":
        con.execute(f"drop view {schema}.{old}")
    elif _kind(con, schema, new) is None:
        con.execute(f"alter table {schema}.{old} rename to {new}")
    elif not _has_runs(con, schema, old):  # a mart every build makes whole from raw: the new one is current
        con.execute(f"drop table {schema}.{old}")
    else:
        con.execute(
            f"insert into {schema}.{new} by name select * from {schema}.{old}"
            f" where run_id not in (select run_id from {schema}.{new})"
        )
        con.execute(f"drop table {schema}.{old}")


def carry_over_renamed_marts(
    con: duckdb.DuckDBPyConnection, present: Collection[tuple[str, str]] | None = None
) -> list[str]:
    """Move each renamed relation's rows from its old table to its new name; return the old names
    moved (``schema.name`` for an analysis table or a seed, the bare name for a mart).

    An old table is renamed when the new one does not exist yet. When both exist (the new one
    was built by code that did not carry the old one over), the old table's runs that the new
    one lacks are copied into it by column name and the old table is dropped (an old table
    without runs, one every build makes whole, is only dropped). An old view is dropped. A
    ``main.<old>`` view then shows the new table, so queries of the old name still answer. All
    of it in one transaction: a failure leaves the warehouse as it was. ``present``: the file's
    (schema, name) pairs as the open just read them
    (:func:`biaswh.warehouse.database.open_catalog.read_catalog`; None: looked up here).
    """
    if present is None:  # every writing open asks, and almost always finds no old name
        present = set(con.execute("select table_schema, table_name from information_schema.tables").fetchall())
    found = [
        (schema, old, new)
        for schema, renamed in RENAMED_RELATIONS.items()
        for old, new in renamed.items()
        if (schema, old) in present
    ]
    if not found:
        return []
    moved = []
    con.execute("begin transaction")
    try:
        for schema, old, new in found:
            _move(con, schema, old, new)
            if _kind(con, schema, new) is not None and _kind(con, "main", old) in (None, "VIEW"):
                con.execute(f"create or replace view main.{old} as select * from {schema}.{new}")
            moved.append(old if schema == "marts" else f"{schema}.{old}")
        con.execute("commit")
    except BaseException:
        con.execute("rollback")
        raise
    return moved
