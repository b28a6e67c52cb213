"""``biaswh rebuild --run ID``: recompute one run's rows in the run-keyed marts, on purpose.

Run-keyed marts never recompute a run they hold; this is the one way to ask for it (after
fixing a model, say). It selects the run-keyed models of the run's study type (the marts
folder whose tables hold the run, or, for a drift series, its evaluation runs) and passes
the run ids as ``rebuild_run_ids``, which ``is_new_run`` treats as new; its data tests check
those runs only. A failed or interrupted run has no results to rebuild (biaswh/withdrawal.py).
"""

from __future__ import annotations

import json

import duckdb

from biaswh.pipeline import STUDY_BUILD_ARGS, dbt_build
from biaswh.withdrawal import built_run_ids
from warehouse.connection import open_warehouse
from warehouse.dbt_runner import BuildSummary
from warehouse.errors import UserError

# One run-keyed table per study type (folder under models/marts) that every run of it fills.
_FAMILY_TABLES = {
    "dialect": "fct_dialect_gold_ranks",
    "evaluation": "fct_retrieval_query_metrics",
    "weat": "weat_results",
    "recsys": "pool_vs_recommended_summary",
}


def _families_holding(con: duckdb.DuckDBPyConnection, run_ids: list[str]) -> list[str]:
    found = []
    for family, table in _FAMILY_TABLES.items():
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
    selection = " ".join(f"tag:run_keyed,path:models/marts/{family}" for family in families)
    if "dialect" in families:
        # The dialect marts derive from the one retrieval-metric chain: its base first.
        selection += " fct_retrieval_relevant_ranks"
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
