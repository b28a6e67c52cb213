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
        for source in yaml.safe_load(path.read_text(encoding="utf-8")).get("sources", []):
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
    """Write the yml's descriptions of ``analysis.<table>`` and of its columns as DuckDB comments."""
    description, columns = analysis_descriptions().get(table, ("", {}))
    if description:
        con.execute(f"comment on table analysis.{table} is {sql_string(description)}")
    present = [
        name
        for (name,) in con.execute(
            "select column_name from duckdb_columns() where schema_name = 'analysis' and table_name = ?", [table]
        ).fetchall()
    ]
    for name in present:
        if columns.get(name):
            con.execute(f'comment on column analysis.{table}."{name}" is {sql_string(columns[name])}')


def copy_comments(con: duckdb.DuckDBPyConnection, *, source: str, view: str) -> None:
    """Give view ``view`` (``schema.name``) the relation comment and column comments of ``source``."""
    source_schema, source_name = source.split(".")
    (comment,) = con.execute(
        "select any_value(comment) from (select comment from duckdb_tables() where schema_name = ? and table_name = ?"
        " union all select comment from duckdb_views() where schema_name = ? and view_name = ?)",
        [source_schema, source_name, source_schema, source_name],
    ).fetchone()
    if comment:
        con.execute(f"comment on view {view} is {sql_string(comment)}")
    for name, column_comment in con.execute(
        "select column_name, comment from duckdb_columns() where schema_name = ? and table_name = ?"
        " and comment is not null",
        [source_schema, source_name],
    ).fetchall():
        con.execute(f'comment on column {view}."{name}" is {sql_string(column_comment)}')
