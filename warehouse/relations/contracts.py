"""The contract relations, reachable without a schema prefix from any DuckDB client.

Each is a view in the ``main`` schema over its home (``marts.*`` or ``analysis.*``), so
``duckdb warehouse.duckdb -c "select * from weat_results"`` works as ``biaswh sql`` does, and
each view carries its home's descriptions as DuckDB comments.
"""

from __future__ import annotations

import duckdb

from biaswh.warehouse.relations.column_docs import copy_comments
from biaswh.warehouse.relations.subjects import publish_subject_views

# contract view name -> (the schema it lives in, the relation there); each study family
# registers its own (its steps module).
CONTRACT_RELATIONS: dict[str, tuple[str, str]] = {}


def register_contract_relations(schema: str, *names: str, **views: str) -> None:
    """Publish relations of ``schema`` (``marts`` or ``analysis``) as contract views in ``main``.

    Parameters
    ----------
    schema : the schema the relations live in.
    names : relations published under their own names.
    views : contract view name -> the relation it shows, for a contract whose name differs
        from its home's (a mart renamed after users came to rely on the view's name, e.g.
        ``dialect_recall_at_k="agg_dialect_recall_at_k"``).
    """
    if schema not in ("marts", "analysis"):
        raise ValueError(f"contract relations live in marts or analysis, not {schema!r}")
    for view, relation in {**{name: name for name in names}, **views}.items():
        CONTRACT_RELATIONS[view] = (schema, relation)


def publish_contract_views(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Create ``main.<relation>`` views for every contract relation that exists; return their names.

    The subjects' views (``subject_findings``, ``dim_subjects``; :mod:`biaswh.warehouse.relations.subjects`) are
    published with them.
    """
    existing = {
        (s, t) for s, t in con.execute("select table_schema, table_name from information_schema.tables").fetchall()
    }
    published = []
    for name, (schema, relation) in CONTRACT_RELATIONS.items():
        if (schema, relation) in existing:
            con.execute(f"create or replace view main.{name} as select * from {schema}.{relation}")
            copy_comments(con, source=f"{schema}.{relation}", view=f"main.{name}")  # the same docs, unqualified
            published.append(name)
    return published + publish_subject_views(con)
