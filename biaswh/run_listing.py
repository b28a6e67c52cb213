"""The queries behind ``Warehouse.runs()`` and ``Warehouse.studies()``: every run, and one row per study.

A built warehouse answers from ``marts.dim_runs`` (with its provenance columns); one never
built, from ``raw.runs``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the API imports DuckDB when it first opens the warehouse
    import duckdb

RUNS_FROM_RAW = """select r.run_id, r.kind as run_kind, r.name as run_name, r.status as run_status,
    r.started_at, r.finished_at, r.message, r.parameters from raw.runs r order by r.started_at desc"""
RUNS_FROM_MARTS = "select * from marts.dim_runs order by started_at desc"
# Per study name: run counts, the latest run and the latest succeeded one (over a `runs` CTE).
STUDIES = """select run_name as study, count(*) as n_runs,
    count(*) filter (where run_status = 'succeeded') as n_succeeded,
    arg_max(run_id, started_at) as latest_run_id, arg_max(run_status, started_at) as latest_status,
    max(started_at) as latest_started_at,
    arg_max(run_id, started_at) filter (where run_status = 'succeeded') as latest_succeeded_run_id
    from runs where run_kind = 'study' group by run_name order by latest_started_at desc"""


def runs_query(con: duckdb.DuckDBPyConnection) -> str:
    """The query listing every run, newest first, from what ``con``'s warehouse holds."""
    from biaswh.dashboards.common.queries import relation_exists

    return RUNS_FROM_MARTS if relation_exists(con, "marts", "dim_runs") else RUNS_FROM_RAW


def studies_query(con: duckdb.DuckDBPyConnection) -> str:
    """The query giving one row per study name that has run, latest first."""
    return f"with runs as ({runs_query(con)}) {STUDIES}"
