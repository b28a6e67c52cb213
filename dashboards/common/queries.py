"""What every page needs from the warehouse and for its numbers: one copy of each helper.

Pages read marts and ``analysis.*`` only; a relation that does not exist yet (a study
type never run in this warehouse) is asked about with :func:`relation_exists` first.
"""

from __future__ import annotations

import contextlib
import re
from contextvars import ContextVar

import duckdb

from biaswh.dashboards.common.format import number  # noqa: F401  (the pages' number format, one copy)

# The relations (schema, name) of one connection read once, while a site is drawn (:func:`catalog_read_once`).
_CATALOG: ContextVar[tuple[duckdb.DuckDBPyConnection, frozenset[tuple[str, str]]] | None] = ContextVar(
    "catalog", default=None
)
_RELATIONS = (
    "select schema_name, table_name from duckdb_tables() where not internal"
    " union all select schema_name, view_name from duckdb_views() where not internal"
)


def relation_exists(con: duckdb.DuckDBPyConnection, schema: str, name: str) -> bool:
    """Whether ``schema.name`` exists (a table or a view). DuckDB's own catalog functions, not
    information_schema (a view over every column of both: 22 ms a call in a 160-relation warehouse
    against 4 ms, and a site asks dozens of times); inside :func:`catalog_read_once` on ``con``,
    from the catalog it read."""
    read = _CATALOG.get()
    if read is not None and read[0] is con:
        return (schema, name) in read[1]
    return (
        con.execute(
            "select count(*) from (select 1 from duckdb_tables()"
            " where schema_name = $1 and table_name = $2 and not internal"
            " union all select 1 from duckdb_views() where schema_name = $1 and view_name = $2 and not internal)",
            [schema, name],
        ).fetchone()[0]
        > 0
    )


@contextlib.contextmanager
def catalog_read_once(con: duckdb.DuckDBPyConnection):
    """While the block reads ``con`` and creates nothing in it (a site's draw), :func:`relation_exists`
    answers from one read of its catalog: a draw asked 153 times, 4.4 of its 41 s in a warehouse of
    the docs' real studies (29 ms a call)."""
    token = _CATALOG.set((con, frozenset(con.execute(_RELATIONS).fetchall())))
    try:
        yield
    finally:
        _CATALOG.reset(token)


def query_rows(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> tuple[list[str], list[list]]:
    """Column names and rows (as lists) of one query."""
    cursor = con.execute(sql, params or [])
    return [d[0] for d in cursor.description], [list(r) for r in cursor.fetchall()]


def query_dicts(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> list[dict]:
    """The rows of one query as dicts keyed by column name."""
    cursor = con.execute(sql, params or [])
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, r)) for r in cursor.fetchall()]


def id_order(column: str) -> str:
    """An ORDER BY term list for an id column: numeric ids in numeric order (2 before 10), then the rest as text."""
    return f"try_cast({column} as bigint) nulls last, {column}"


# Human labels for SQL column names (a name not listed reads with its underscores as spaces).
# A value may name the SQL columns it is built from when the page derives it (e.g. an interval).
HEADERS: dict[str, tuple[str, str]] = {
    "recall_a": ("recall A", "recall_a"),
    "recall_b": ("recall B", "recall_b"),
    "delta_pp": ("difference A − B, points", "delta_pp"),
    "ci_95_pp": ("95% CI, points", "ci_low, ci_high"),
    "ci_95": ("95% CI", "ci_low, ci_high"),
    "change_ci_95": ("95% CI of the change", "change_ci_low, change_ci_high"),
    "value_vs_baseline": ("value vs baseline", "value, baseline_value"),
    "alert_rule": ("alert rule", "direction, threshold"),
    "only_a": ("only A found it", "only_a"),
    "only_b": ("only B found it", "only_b"),
    "both_hit": ("both found it", "both_hit"),
    "neither": ("neither", "neither"),
    "n_pairs": ("pairs", "n_pairs"),
    "n_discordant": ("discordant pairs", "n_discordant"),
    "rule_source": ("where the feature is described", "rule_source"),
    "detectable_gap_pp": ("detectable gap, points", "detectable_gap_pp"),
    "n_used": ("pairs used", "n_used"),
    "p_exact": ("p, exact McNemar", "p_exact"),
    "p_midp": ("p, mid-p McNemar", "p_midp"),
    "p_chi2_cc": ("p, χ² with correction", "p_chi2_cc"),
    "p_holm": ("p, Holm-adjusted", "p_holm"),
    "p_value": ("p", "p_value"),
    "p_value_adjusted": ("p, adjusted", "p_value_adjusted"),
    "p_adjusted": ("p, adjusted within the family", "p_adjusted"),
    "family_size": ("tests in the family", "family_size"),
    "adjustment": ("adjustment", "adjustment"),
    "is_significant": ("significant", "is_significant"),
    "pair_set": ("pair set", "pair_set"),
    "pair_id": ("pair", "pair_id"),
    "query_text_a": ("query A", "query_text_a"),
    "query_text_b": ("query B", "query_text_b"),
    "gold_outcome_a": ("gold with A", "gold_outcome_a"),
    "gold_outcome_b": ("gold with B", "gold_outcome_b"),
    "n_queries": ("queries", "n_queries"),
    "baseline_value": ("baseline", "baseline_value"),
    "mean_change": ("mean change", "mean_change"),
    "n_paired_queries": ("paired queries", "n_paired_queries"),
    "source_sha256": ("sha256", "source_sha256"),
    "n_rows": ("rows", "n_rows"),
    "hedges_g": ("Hedges' g", "hedges_g"),
    "bias_corrected_v": ("bias-corrected V", "bias_corrected_v"),
    "n_recommended": ("recommended", "n_recommended"),
    "n_pool": ("pool", "n_pool"),
    "ci_low": ("CI low", "ci_low"),
    "system_a": ("system A", "system_a"),
    "system_b": ("system B", "system_b"),
    "value_a": ("A", "value_a"),
    "value_b": ("B", "value_b"),
    "mean_difference": ("difference A − B", "mean_difference"),
    "difference_ci_95": ("95% CI of the difference", "difference_ci_low, difference_ci_high"),
    "ci_high": ("CI high", "ci_high"),
}
_SQL_NAME = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)+$")


def column_label(column: str) -> tuple[str, str | None]:
    """(human label, SQL column it shows or None) for a table column named ``column``."""
    if column in HEADERS:
        return HEADERS[column]
    if _SQL_NAME.match(column):
        return column.replace("_", " "), column
    return column, None
