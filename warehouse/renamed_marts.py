"""Marts renamed after warehouses were built under their old names, carried over on opening.

A run-keyed mart is incremental and never fully refreshed: its rows are the finished runs'
results, and a build adds or replaces only the runs it computes. Built under a new name it
would start empty, and every earlier run's rows would stay behind in the old table, unseen by
everything that reads the new name. So a writing open renames the old table first (before any
dbt build of that process sees the warehouse), and points the ``main.*`` contract view of the
old name at the new table at once (the pipeline re-publishes it with its comments later).
"""

from __future__ import annotations

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
}


def _kind(con: duckdb.DuckDBPyConnection, schema: str, name: str) -> str | None:
    row = con.execute(
        "select table_type from information_schema.tables where table_schema = ? and table_name = ?", [schema, name]
    ).fetchone()
    return row[0] if row else None


def carry_over_renamed_marts(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Move each renamed mart's rows from its old table to its new name; return the old names moved.

    An old table is renamed when the new one does not exist yet. When both exist (the new one
    was built by code that did not carry the old one over), the old table's runs that the new
    one lacks are copied into it by column name and the old table is dropped. An old view is
    dropped. All of it in one transaction: a failure leaves the warehouse as it was.
    """
    moved = []
    con.execute("begin transaction")
    try:
        for old, new in RENAMED_MARTS.items():
            kind = _kind(con, "marts", old)
            if kind is None:
                continue
            if kind == "VIEW":
                con.execute(f"drop view marts.{old}")
            elif _kind(con, "marts", new) is None:
                con.execute(f"alter table marts.{old} rename to {new}")
            else:
                con.execute(
                    f"insert into marts.{new} by name select * from marts.{old}"
                    f" where run_id not in (select run_id from marts.{new})"
                )
                con.execute(f"drop table marts.{old}")
            if _kind(con, "main", old) == "VIEW" and _kind(con, "marts", new) is not None:
                con.execute(f"create or replace view main.{old} as select * from marts.{new}")
            moved.append(old)
        con.execute("commit")
    except BaseException:
        con.execute("rollback")
        raise
    return moved
