"""`biaswh sql` runs on DuckDB's own sandbox: it cannot write, reach other files, or change settings."""

import hashlib

import pytest

from biaswh.cli import main
from ingest.squad import load_squad
from tests.conftest import DEMO_DATA
from warehouse.connection import connect


@pytest.fixture
def loaded_home(warehouse_home):
    con = connect()
    load_squad(con, str(DEMO_DATA / "squad_demo.json"))
    con.close()
    return warehouse_home


def _sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


REFUSED = {
    "copy to the warehouse": ("copy (select 'x' as a) to '{db}' (format csv)", "Permission Error"),
    "copy to elsewhere": ("copy (select 1 as a) to '{out}/leak.csv' (format csv)", "Permission Error"),
    "export database": ("export database '{out}/export'", "Permission Error"),
    "install": ("install httpfs", "Permission Error"),
    "load": ("load httpfs", "Permission Error"),
    "set": ("set threads = 1", "the configuration has been locked"),
    "set external access back on": ("set enable_external_access = true", "the configuration has been locked"),
    "attach": ("attach '{out}/other.duckdb' as other", "Permission Error"),
    "read another file": ("select * from read_csv('{readable}')", "Permission Error"),
    "write": ("delete from raw.runs", "read-only mode"),
}


@pytest.mark.parametrize("name", REFUSED)
def test_sql_that_would_write_reach_files_or_change_settings_is_refused(name, loaded_home, tmp_path, capsys):
    database = loaded_home / "warehouse.duckdb"
    out = tmp_path / "out"
    out.mkdir()
    readable = tmp_path / "readable.csv"
    readable.write_text("a\n1\n", encoding="utf-8")
    before = _sha256(database)
    query, reason = REFUSED[name]
    assert main(["sql", query.format(db=database, out=out, readable=readable)]) == 2
    error = capsys.readouterr().err
    assert error.startswith("biaswh: error: SQL error:") and reason in error
    assert error.count("\n") == 1 and "Traceback" not in error
    assert _sha256(database) == before
    assert list(out.iterdir()) == []


def test_a_normal_select_still_works_with_the_layers_on_the_search_path(loaded_home, capsys):
    assert main(["sql", "select split, count(*) as n from squad_questions group by split", "--csv"]) == 0
    assert capsys.readouterr().out.splitlines() == ["split,n", "train,64"]


@pytest.mark.parametrize("query", ["", "   ", ";", "-- only a comment"])
def test_an_empty_query_is_one_line_and_exit_2(query, loaded_home, capsys):
    assert main(["sql", query]) == 2
    error = capsys.readouterr().err
    assert error.startswith("biaswh: error: sql: the query") and error.count("\n") == 1
