"""Sub-runs: runs a study run starts inside itself, declared by the family that starts them.

A family whose study job starts runs of its own (each a ``raw.runs`` row, e.g. the runs of a
drift series) lists them in one raw table, a row per sub-run with the study run it belongs
to, and registers that table here. A study build then computes and tests the sub-runs with
their study run, and withdrawing a failed study run withdraws its sub-runs too
(``biaswh/withdrawal.py``, :mod:`biaswh.warehouse.spark.target`). dbt learns the same from the
table's source entry: ``meta: {parent_run_column: <column>}`` (macro ``withdrawn_run_ids``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import duckdb

_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")


@dataclass(frozen=True)
class SubRunKind:
    """A raw table listing sub-runs: ``run_id`` is the sub-run, ``parent_column`` its study run."""

    table: str
    parent_column: str
    order_column: str | None = None


# family -> the raw table of its sub-runs.
SUB_RUN_KINDS: dict[str, SubRunKind] = {}


def register_sub_runs(family: str, *, table: str, parent_column: str, order_column: str | None = None) -> None:
    """Declare that ``family``'s study runs start sub-runs, listed in ``raw.<table>``.

    Parameters
    ----------
    family : the study family declaring them.
    table : a raw table with a ``run_id`` column (the sub-run) and ``parent_column``.
    parent_column : the column naming the study run the sub-run belongs to.
    order_column : the column ordering the sub-runs of one study run (default: by run id).
    """
    for name in (table, parent_column, order_column or "run_id"):
        if not _NAME.match(name):
            raise ValueError(f"not a plain SQL name: {name!r}")
    SUB_RUN_KINDS[family] = SubRunKind(table, parent_column, order_column)


def sub_run_ids(con: duckdb.DuckDBPyConnection, run_id: str) -> list[str]:
    """The sub-runs of study run ``run_id``, family by family in name order, each in its order."""
    found: list[str] = []
    for _, kind in sorted(SUB_RUN_KINDS.items()):
        order = kind.order_column or "run_id"
        rows = con.execute(
            f"select run_id from raw.{kind.table} where {kind.parent_column} = ? order by {order}", [run_id]
        ).fetchall()
        found += [child for (child,) in rows]
    return found


def withdrawn_sub_runs_sql(read_table, withdrawn: str, *, tables: set[str] | None = None) -> str:
    """SQL ``union all`` arms selecting every sub-run whose study run is withdrawn.

    ``read_table(name)``: the relation of raw table ``name`` (a table name or a ``read_parquet``);
    ``withdrawn``: the predicate on ``runs`` columns (prefixed ``parent.``) a withdrawn run meets;
    ``tables``: only the sub-run tables named here (default: every registered one).
    """
    return "".join(
        f" union all select child.run_id from {read_table(kind.table)} as child"
        f" inner join {read_table('runs')} as parent on child.{kind.parent_column} = parent.run_id"
        f" where {withdrawn}"
        for _, kind in sorted(SUB_RUN_KINDS.items())
        if tables is None or kind.table in tables
    )
