"""``biaswh rebuild --run ID``: recompute one run's rows in the run-keyed marts, on purpose.

Run-keyed marts never recompute a run they hold; this is the one way to ask for it (after
fixing a model, say). It selects the run-keyed models of the run's study type (the dbt tag
of the family whose registered table, :func:`biaswh.warehouse.runs.study.register_rebuild_table`, holds the run,
or, for a drift series, its evaluation runs) and passes
the run ids as ``rebuild_run_ids``, which ``is_new_run`` treats as new; its data tests check
those runs only. A failed or interrupted run has no results to rebuild (biaswh/withdrawal.py).
"""

from __future__ import annotations

import json

import duckdb

from biaswh.pipeline import dbt_build, load_plugins
from biaswh.study_builds import STUDY_BUILD_ARGS
from biaswh.warehouse.database.connection import open_warehouse
from biaswh.warehouse.dbt_build.runner import BuildSummary
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.study import REBUILD_TABLES
from biaswh.withdrawal import built_run_ids


def _families_holding(con: duckdb.DuckDBPyConnection, run_ids: list[str]) -> list[str]:
    found = []
    for family, table in REBUILD_TABLES.items():
        exists = con.execute(
            "select count(*) from information_schema.tables where table_schema = 'marts' and table_name = ?", [table]
        ).fetchone()[0]
        if (
            exists
            and con.execute(f"select count(*) from marts.{table} where list_contains(?, run_id)", [run_ids]).fetchone()[
                0
            ]
        ):
            found.append(family)
    return found


def rebuild_run(run_id: str) -> BuildSummary:
    """Recompute run ``run_id``'s rows from its raw rows and recorded parameters."""
    load_plugins()  # each family registers its rebuild table with its steps
    with open_warehouse(read_only=True) as con:
        status = con.execute("select status from raw.runs where run_id = ?", [run_id]).fetchone()
        if status is None:
            raise UserError(f'no run {run_id!r} in this warehouse (see `biaswh sql "select * from dim_runs"`)')
        if status[0] in ("failed", "interrupted"):
            raise UserError(f"run {run_id} {status[0]}: its results were withdrawn from the marts; run its study again")
        ids = built_run_ids(con, run_id)
        families = _families_holding(con, ids)
    if not families:
        raise UserError(f"run {run_id} has no rows in any run-keyed mart: nothing to rebuild")
    selection = " ".join(f"tag:run_keyed,tag:{family}" for family in families)
    return dbt_build(
        [
            *STUDY_BUILD_ARGS,
            "--select",
            selection,
            "--indirect-selection",
            "cautious",
            "--vars",
            json.dumps({"rebuild_run_ids": ids}),
        ],
        label=f"rebuild {run_id}",
        run_ids=ids,
    )
