"""The contract relations, reachable without a schema prefix from any DuckDB client.

Each is a view in the ``main`` schema over its home (``marts.*`` or ``analysis.*``), so
``duckdb warehouse.duckdb -c "select * from weat_results"`` works as ``biaswh sql`` does, and
each view carries its home's descriptions as DuckDB comments.
"""

from __future__ import annotations

import duckdb

from biaswh.warehouse.database.transactions import transaction
from biaswh.warehouse.relations.column_docs import copy_comments, relation_docs
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

    A view that already shows its relation, with the relation's columns and comments as they
    are now, is kept as it is: every study run publishes, and rewriting a comment is a write to
    the catalog (a few hundred per publish). The subjects' views (``subject_findings``,
    ``dim_subjects``; :mod:`biaswh.warehouse.relations.subjects`) are published with them. All in
    one transaction: a reader sees the views before or after, and the file syncs once, where each
    statement's own commit synced it (the subjects' 48 statements took 0.2 s of a warm
    squad_dialect run, its CPU 0.05 s).
    """
    with transaction(con):
        return _publish(con)


def _publish(con: duckdb.DuckDBPyConnection) -> list[str]:
    docs = relation_docs(con, ("main", "marts", "analysis"))
    definitions = dict(
        con.execute("select view_name, sql from duckdb_views() where schema_name = 'main' and not internal").fetchall()
    )
    published = []
    for name, (schema, relation) in CONTRACT_RELATIONS.items():
        if (schema, relation) not in docs:
            continue
        shown = docs[(schema, relation)]
        # How DuckDB stores the definition below (any other spelling: made again).
        current = definitions.get(name) == f"CREATE VIEW {name} AS SELECT * FROM {schema}.{relation};"
        if not (current and docs.get(("main", name)) == shown):
            con.execute(f"create or replace view main.{name} as select * from {schema}.{relation}")
            copy_comments(con, docs=shown, view=f"main.{name}")  # the same docs, unqualified
        published.append(name)
    return published + publish_subject_views(con)
