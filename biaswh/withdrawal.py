"""A failed study run never poisons the warehouse: its results leave the marts at once.

A run whose rows fail a data test (or whose study fails for any other reason) keeps its raw
rows, for forensics, but no mart holds its results: :func:`withdraw_run` deletes them from
every mart table in one transaction, and the dbt models never compute a withdrawn run again
(macro ``withdrawn_run_ids``), nor do the data tests check its rows (macro
``get_where_subquery``), so the next study and ``biaswh build`` pass.
"""

from __future__ import annotations

import duckdb

from biaswh.plugins import RUN_LAYERS, load_plugins
from biaswh.warehouse.database.connection import open_warehouse
from biaswh.warehouse.database.transactions import transaction
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.sub_runs import sub_run_ids


def built_run_ids(con: duckdb.DuckDBPyConnection, run_id: str) -> list[str]:
    """``run_id`` and its sub-runs (:mod:`biaswh.warehouse.runs.sub_runs`): the runs a study's build computes.

    The families' steps are loaded first: a sub-run kind left unregistered would stay in the marts. Not
    their pages, which register none: a study run's results build loads those in a thread meanwhile
    (:func:`biaswh.plugins.loading_in_background`), and loading them here too made its own thread wait
    for them (or import them itself) before dbt could start.
    """
    load_plugins(RUN_LAYERS)
    return [run_id, *sub_run_ids(con, run_id)]


def mart_tables_with_runs(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every table (not view) in ``marts`` with a ``run_id`` column: the run-keyed marts."""
    rows = con.execute(
        "select c.table_name from information_schema.columns c"
        " join information_schema.tables t using (table_catalog, table_schema, table_name)"
        " where c.table_schema = 'marts' and c.column_name = 'run_id' and t.table_type = 'BASE TABLE'"
        " order by 1"
    ).fetchall()
    return [table for (table,) in rows]


def withdraw_run(con: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, int]:
    """Delete ``run_id``'s rows (and its sub-runs') from every mart table, in one transaction.

    Returns the rows deleted per table (tables that held none are left out).
    """
    ids = built_run_ids(con, run_id)
    deleted = {}
    with transaction(con):
        for table in mart_tables_with_runs(con):
            n_rows = con.execute(f'delete from marts."{table}" where list_contains(?, run_id)', [ids]).fetchone()[0]
            if n_rows:
                deleted[table] = n_rows
    return deleted


def withdrawn_if_failing(run_id: str, work) -> None:
    """Run ``work``; if it raises, withdraw ``run_id``'s results from the marts, then re-raise.

    If even the withdrawal is impossible (a full disk, a reader holding the warehouse), the
    original error is raised: the models and tests still ignore the run once it is marked
    failed, and only its rows already in a mart stay there.
    """
    try:
        work()
    except BaseException:
        try:
            with open_warehouse() as con:
                withdraw_run(con, run_id)
        except (UserError, OSError, duckdb.Error):
            pass
        raise
