"""The failed checks of a ``checks`` data test (macro ``test_checks``), named as dbt names its tests.

A model's checks run as one dbt node (one scan for the row-wise ones); when that node fails,
dbt says only how many rows failed. :func:`describe_failed_checks` runs the test's compiled
query on the warehouse again to learn which checks failed, and names each the way its own dbt
test would be named: ``expression_is_true ((n_hits = 0) = ...) on stg_retrieval__query_stats``.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from biaswh.warehouse.database.connection import open_file, warehouse_config

# The macro's arguments, in the order it checks them, and the dbt test each one stands for.
KINDS = {
    "not_null": "not_null",
    "expressions": "expression_is_true",
    "accepted_values": "accepted_values",
    "unique": "unique",
    "unique_combinations": "unique_combination_of_columns",
}


def check_names(arguments: dict) -> dict[str, str]:
    """Every check of a ``checks`` test's ``arguments``: its label in the test's rows -> its readable name."""
    names: dict[str, str] = {}
    for kind, test in KINDS.items():
        if kind == "accepted_values":
            for column, values in (arguments.get(kind) or {}).items():
                names[f"{kind}.{column}"] = f"{test} ({column}: {', '.join(str(v) for v in values)})"
            continue
        for position, item in enumerate(arguments.get(kind) or []):
            shown = ", ".join(str(c) for c in item) if isinstance(item, list) else str(item)
            names[f"{kind}.{position}"] = f"{test} ({shown})"
    return names


def failing_checks(compiled: Path, duckdb_file: Path) -> list[tuple[str, int]] | None:
    """``(label, failing rows)`` of each failing check: the compiled test query run on the warehouse
    file (read-only); None when either cannot be read (a busy file, a query of another target)."""
    try:
        query = compiled.read_text(encoding="utf-8")
        con = open_file(duckdb_file, read_only=True, config=warehouse_config(duckdb_file))
    except (OSError, duckdb.Error):
        return None
    try:
        return [(str(label), int(rows)) for label, rows in con.execute(f"select * from ({query}) failed").fetchall()]
    except duckdb.Error:
        return None
    finally:
        con.close()


def describe_failed_checks(arguments: dict, tested: str, failing: list[tuple[str, int]] | None) -> str:
    """The failed checks of the ``checks`` test on ``tested``, each with its failing rows, in the
    order they are declared; without ``failing`` (unknown), every check the test holds."""
    names = check_names(arguments)
    if not failing:
        return f"data test checks on {tested} (one of: {'; '.join(names.values())})"
    order = list(names)
    failing = sorted(failing, key=lambda row: order.index(row[0]) if row[0] in names else len(order))
    return "; ".join(
        f"data test {names.get(label, label)} on {tested} ({rows} failing {'row' if rows == 1 else 'rows'})"
        for label, rows in failing
    )
