"""relation_exists: a table or a view of that schema and name, nothing else; read once while a site is drawn."""

from __future__ import annotations

import duckdb
import pytest

from biaswh.dashboards.common.queries import catalog_read_once, relation_exists

ASKED = [("marts", "dim_runs"), ("analysis", "paired"), ("analysis", "dim_runs"), ("marts", "paired"),
         ("marts", "dim_run"), ("main", "duckdb_tables")]  # fmt: skip


@pytest.fixture
def con(tmp_path):
    connection = duckdb.connect(str(tmp_path / "w.duckdb"))
    connection.execute("create schema marts; create schema analysis")
    connection.execute("create table marts.dim_runs (run_id varchar); create view analysis.paired as select 1 as x")
    yield connection
    connection.close()


def test_tables_and_views_exist_by_schema_and_name_only(con):
    assert [relation_exists(con, *asked) for asked in ASKED] == [True, True, False, False, False, False]


def test_a_draw_reads_the_catalog_once_with_the_same_answers_and_only_for_its_connection(con, tmp_path):
    other = duckdb.connect(str(tmp_path / "other.duckdb"))
    other.execute("create schema marts; create table marts.paired (x int)")
    with catalog_read_once(con):
        assert [relation_exists(con, *asked) for asked in ASKED] == [True, True, False, False, False, False]
        con.execute("create table marts.made_during (x int)")  # a draw creates nothing: not asked again
        assert not relation_exists(con, "marts", "made_during")
        assert relation_exists(other, "marts", "paired")  # another connection asks its own catalog
    assert relation_exists(con, "marts", "made_during")  # after the draw, asked again
    other.close()
