"""The contract relations, reachable without a schema prefix from any DuckDB client.

Each is a view in the ``main`` schema over its home (``marts.*`` or ``analysis.*``), so
``duckdb warehouse.duckdb -c "select * from weat_results"`` works as ``biaswh sql`` does, and
each view carries its home's descriptions as DuckDB comments.
"""

from __future__ import annotations

import duckdb

from warehouse.column_docs import copy_comments

# relation -> the schema it lives in
CONTRACT_RELATIONS = {
    "dialect_recall_at_k": "marts",
    "dialect_paired_tests": "analysis",
    "retrieval_metrics_at_k": "analysis",
    "retrieval_alerts": "analysis",
    "weat_results": "marts",
    "silent_bias_rates": "analysis",
    "pool_vs_recommended_summary": "marts",
    "recsys_bias_aggregated": "marts",
    "recsys_effect_sizes_aggregated": "marts",
}


def publish_contract_views(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Create ``main.<relation>`` views for every contract relation that exists; return their names."""
    existing = {
        (s, t) for s, t in con.execute("select table_schema, table_name from information_schema.tables").fetchall()
    }
    published = []
    for name, schema in CONTRACT_RELATIONS.items():
        if (schema, name) in existing:
            con.execute(f"create or replace view main.{name} as select * from {schema}.{name}")
            copy_comments(con, source=f"{schema}.{name}", view=f"main.{name}")  # the same docs, unqualified
            published.append(name)
    return published
