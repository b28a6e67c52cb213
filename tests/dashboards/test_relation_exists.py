"""relation_exists: a table or a view of that schema and name, nothing else."""

from __future__ import annotations

import duckdb

from biaswh.dashboards.common.queries import relation_exists


def test_tables_and_views_exist_by_schema_and_name_only(tmp_path):
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    con.execute("create schema marts; create schema analysis")
    con.execute("create table marts.dim_runs (run_id varchar); create view analysis.paired as select 1 as x")

    assert relation_exists(con, "marts", "dim_runs")
    assert relation_exists(con, "analysis", "paired")
    assert not relation_exists(con, "analysis", "dim_runs")
    assert not relation_exists(con, "marts", "paired")
    assert not relation_exists(con, "marts", "dim_run")
    assert not relation_exists(con, "main", "duckdb_tables")
