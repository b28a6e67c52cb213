"""Write analysis results into ``analysis.*``: one transaction, replacing a run's earlier rows."""

from __future__ import annotations

import duckdb
import polars as pl


def replace_run_rows(con: duckdb.DuckDBPyConnection, table: str, run_id: str, frame: pl.DataFrame) -> int:
    """Store ``frame`` as run ``run_id``'s rows of ``analysis.<table>`` (earlier rows of that run removed).

    The table is created from the frame's schema on first use; re-running an analysis
    for the same run leaves exactly one copy of its results.
    """
    con.execute("create schema if not exists analysis")
    con.register("analysis_frame", frame.to_arrow())
    try:
        con.execute(f"create table if not exists analysis.{table} as select * from analysis_frame limit 0")
        con.execute(f"delete from analysis.{table} where run_id = ?", [run_id])
        con.execute(f"insert into analysis.{table} by name select * from analysis_frame")
    finally:
        con.unregister("analysis_frame")
    return frame.height
