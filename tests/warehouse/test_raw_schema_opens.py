"""A writing open skips the raw schema's DDL only when the raw tables are what it left: whatever
another connection changed between two opens of one process is put back, or refused, as when the
DDL ran on every open (warehouse/database/raw_schema.py)."""

from __future__ import annotations

import duckdb
import pytest

from biaswh.warehouse.database import raw_schema
from biaswh.warehouse.database.connection import connect
from biaswh.warehouse.errors import UserError

RAW_TABLES = "select table_name, sql from duckdb_tables() where schema_name = 'raw' order by table_name"


def _open_and_close() -> list[tuple[str, str]]:
    con = connect()
    try:
        return con.execute(RAW_TABLES).fetchall()
    finally:
        con.close()


def _from_outside(home, *statements: str) -> None:
    """What someone else does to the file between two opens (DuckDB's own connection, not biaswh's)."""
    with duckdb.connect(str(home / "warehouse.duckdb")) as con:
        for statement in statements:
            con.execute(statement)


@pytest.fixture
def ddl_runs(monkeypatch) -> list[str]:
    """The DDL each writing open ran (empty entries: none)."""
    ran: list[str] = []
    pending = raw_schema._pending_ddl
    monkeypatch.setattr(raw_schema, "_pending_ddl", lambda con, ddl: ran.append(ddl) or pending(con, ddl))
    return ran


def test_a_second_open_of_an_unchanged_warehouse_runs_no_ddl(warehouse_home, ddl_runs):
    first = _open_and_close()
    assert len(ddl_runs) == 1  # a new file: its raw schema made
    assert _open_and_close() == first
    assert len(ddl_runs) == 1


def test_a_raw_table_dropped_between_two_opens_is_created_again(warehouse_home, ddl_runs):
    settled = _open_and_close()
    _open_and_close()
    _from_outside(warehouse_home, "drop table raw.run_inputs")

    assert _open_and_close() == settled
    assert len(ddl_runs) == 2


def test_raw_columns_altered_between_two_opens_are_migrated_again(warehouse_home, ddl_runs):
    settled = _open_and_close()
    _open_and_close()
    _from_outside(
        warehouse_home,
        "alter table raw.query_pair_variants alter column squad_split set not null",  # the DDL drops it
        "alter table raw.runs drop column host",  # the DDL adds it if missing (as the last column, where it was)
    )

    assert _open_and_close() == settled
    assert len(ddl_runs) == 2
    with duckdb.connect(str(warehouse_home / "warehouse.duckdb"), read_only=True) as con:
        columns = "select column_name, is_nullable from duckdb_columns() where schema_name = 'raw' and table_name = ?"
        assert ("squad_split", True) in con.execute(columns, ["query_pair_variants"]).fetchall()
        assert "host" in {name for name, _ in con.execute(columns, ["runs"]).fetchall()}


def test_a_changed_ddl_runs_on_the_next_open(warehouse_home, ddl_runs, monkeypatch):
    _open_and_close()
    _open_and_close()
    ddl = raw_schema.raw_schema_ddl() + "\ncreate table if not exists raw.added (x integer);"
    monkeypatch.setattr(raw_schema, "raw_schema_ddl", lambda: ddl)

    assert "added" in {name for name, _ in _open_and_close()}
    assert len(ddl_runs) == 2


def test_a_layout_changed_between_two_opens_is_refused(warehouse_home):
    _open_and_close()
    _open_and_close()
    _from_outside(warehouse_home, "update raw.warehouse_layout set layout_version = 3")

    with pytest.raises(UserError, match="warehouse layout 3"):
        connect()
