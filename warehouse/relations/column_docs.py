"""Descriptions of the ``analysis.*`` tables and their columns, written as DuckDB comments.

The one source is dbt's yml: ``dbt_project/models/analysis/_analysis_<family>__sources.yml`` declares each
analysis table as a dbt source (schema ``analysis``) with a description per column, so ``dbt docs
generate`` shows them, and :func:`comment_analysis_table` writes the same text as ``comment on``
whenever a table is written (analysis/common/store.py). Describing a new column is one line in that yml;
tests/dbt_project/test_analysis_column_docs.py fails on a column without one. The ``main.*``
contract views take the comments of the relation they show (:mod:`biaswh.warehouse.relations.contracts`).
"""

from __future__ import annotations

from functools import lru_cache

import duckdb

from biaswh.warehouse.settings.home import DBT_PROJECT_DIR

ANALYSIS_DOCS_DIR = DBT_PROJECT_DIR / "models" / "analysis"


@lru_cache(maxsize=1)
def analysis_descriptions() -> dict[str, tuple[str, dict[str, str]]]:
    """``{table: (its description, {column: description})}`` of every source in schema ``analysis``."""
    import yaml

    tables: dict[str, tuple[str, dict[str, str]]] = {}
    for path in sorted(ANALYSIS_DOCS_DIR.glob("*.yml")):
        # libyaml's loader when PyYAML has it: the same documents, 0.006 s instead of 0.059 s for these files.
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        for source in yaml.load(path.read_text(encoding="utf-8"), Loader=loader).get("sources", []):
            if source.get("schema") != "analysis":
                continue
            for table in source.get("tables", []):
                columns = {c["name"]: (c.get("description") or "").strip() for c in table.get("columns", [])}
                tables[table["name"]] = ((table.get("description") or "").strip(), columns)
    return tables


def sql_string(text: str) -> str:
    """``text`` as a SQL string literal (``comment on`` takes no parameters)."""
    return "'" + text.replace("'", "''") + "'"


def comment_analysis_table(con: duckdb.DuckDBPyConnection, table: str) -> None:
    """Write the yml's descriptions of ``analysis.<table>`` and of its columns as DuckDB comments.

    A comment DuckDB already holds as the yml words it is not written again: every analysis
    rewrote them all, a catalog write each (3 tables of a dialect run: 41 ms of CPU).
    """
    description, columns = analysis_descriptions().get(table, ("", {}))
    held = con.execute(
        "select null, comment from duckdb_tables() where schema_name = 'analysis' and table_name = $1"
        " union all select column_name, comment from duckdb_columns()"
        " where schema_name = 'analysis' and table_name = $1",
        [table],
    ).fetchall()
    if description and (None, description) not in held:
        con.execute(f"comment on table analysis.{table} is {sql_string(description)}")
    for name, comment in held:
        if name is not None and columns.get(name) and comment != columns[name]:
            con.execute(f'comment on column analysis.{table}."{name}" is {sql_string(columns[name])}')


def relation_docs(con: duckdb.DuckDBPyConnection, schemas: tuple[str, ...]) -> dict[tuple[str, str], tuple]:
    """``{(schema, relation): (its comment, ((column, its comment), ...))}`` of every table and view
    in ``schemas``, columns in their order; a missing comment is None. One read of the catalog."""
    listed = ", ".join(sql_string(schema) for schema in schemas)
    relations = con.execute(
        f"select schema_name, table_name, comment from duckdb_tables() where schema_name in ({listed})"
        f" union all select schema_name, view_name, comment from duckdb_views()"
        f" where schema_name in ({listed}) and not internal"
    ).fetchall()
    columns: dict[tuple[str, str], list] = {}
    for schema, relation, column, comment in con.execute(
        "select schema_name, table_name, column_name, comment from duckdb_columns()"
        f" where schema_name in ({listed}) order by schema_name, table_name, column_index"
    ).fetchall():
        columns.setdefault((schema, relation), []).append((column, comment or None))
    return {
        (schema, relation): (comment or None, tuple(columns.get((schema, relation), ())))
        for schema, relation, comment in relations
    }


def copy_comments(con: duckdb.DuckDBPyConnection, *, docs: tuple, view: str) -> None:
    """Give view ``view`` (``schema.name``) a relation's comment and column comments, ``docs`` as
    :func:`relation_docs` reads them."""
    comment, columns = docs
    if comment:
        con.execute(f"comment on view {view} is {sql_string(comment)}")
    for name, column_comment in columns:
        if column_comment:
            con.execute(f'comment on column {view}."{name}" is {sql_string(column_comment)}')
