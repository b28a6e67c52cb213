"""The contract relations, reachable without a schema prefix from any DuckDB client.

Each is a view in the ``main`` schema over its home (``marts.*`` or ``analysis.*``), so
``duckdb warehouse.duckdb -c "select * from weat_results"`` works as ``biaswh sql`` does, and
each view carries its home's descriptions as DuckDB comments.
"""

from __future__ import annotations

import duckdb

from warehouse.column_docs import copy_comments

# relation -> the schema it lives in; each study family registers its own (its steps module).
CONTRACT_RELATIONS: dict[str, str] = {}


def register_contract_relations(schema: str, *names: str) -> None:
    """Publish ``names`` (relations of ``schema``: ``marts`` or ``analysis``) as contract views.

    Parameters
    ----------
    schema : the schema the relations live in.
    names : the relations' names, also the views' names in ``main``.
    """
    if schema not in ("marts", "analysis"):
        raise ValueError(f"contract relations live in marts or analysis, not {schema!r}")
    for name in names:
        CONTRACT_RELATIONS[name] = schema


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
