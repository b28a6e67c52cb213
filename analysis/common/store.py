"""Write analysis results into ``analysis.*``: one transaction, replacing a run's earlier rows."""

from __future__ import annotations

import duckdb
import polars as pl
import pyarrow as pa

from biaswh.warehouse.database.transactions import registered
from biaswh.warehouse.relations.column_docs import comment_analysis_table


def replace_run_rows(con: duckdb.DuckDBPyConnection, table: str, run_id: str, frame: pl.DataFrame | pa.Table) -> int:
    """Store ``frame`` as run ``run_id``'s rows of ``analysis.<table>`` (earlier rows of that run removed).

    This is the one writer of ``analysis.*``; it never touches another run's rows. The table is
    created from the frame's schema on first use; re-running an analysis
    for the same run leaves exactly one copy of its results.
    """
    rows = frame if isinstance(frame, pa.Table) else frame.to_arrow()
    con.execute("create schema if not exists analysis")
    with registered(con, "analysis_frame", rows):
        con.execute(f"create table if not exists analysis.{table} as select * from analysis_frame limit 0")
        # A table written before a column was added (e.g. the verdict columns) takes the new
        # column, null for its earlier runs, so re-analysing an old warehouse does not fail.
        present = {
            name
            for (name,) in con.execute(
                "select column_name from information_schema.columns where table_schema = 'analysis' and table_name = ?",
                [table],
            ).fetchall()
        }
        for name, kind, *_ in con.execute("describe select * from analysis_frame").fetchall():
            if name not in present:
                con.execute(f'alter table analysis.{table} add column "{name}" {kind}')
        con.execute(f"delete from analysis.{table} where run_id = ?", [run_id])
        con.execute(f"insert into analysis.{table} by name select * from analysis_frame")
        # Every write (re)states the descriptions, so a column added since carries its own.
        comment_analysis_table(con, table)
    return rows.num_rows
