"""The sandbox beside a Spark build's tables: the Parquet folders DuckDB's views read are readable,
and nothing a user types writes into them.

DuckDB's ``allowed_directories`` opens those folders for writing as well as reading, so the
statement checks (:func:`biaswh.warehouse.database.sandbox.refuse_file_statements`) are what keep
a finished run's Spark rows as they are: every entry point (``biaswh sql``, the Python API) goes
through them.
"""

from __future__ import annotations

import duckdb
import pytest

import biaswh.api
from biaswh.warehouse.errors import UserError
from tests.conftest import run_cli

WRITES = [
    "copy (select 2 as a) to '{folder}/evil.parquet'",
    "copy (select 2 as a) to '{folder}/part-0.parquet' (format parquet)",
    "export database '{folder}/dump'",
    "attach '{folder}/new.duckdb' as new",
]


@pytest.fixture
def home(tmp_path):
    """A warehouse whose ``marts.t`` is a view over Parquet in ``spark/tables/t`` (as a Spark build leaves it)."""
    home = tmp_path / "home"
    folder = home / "spark" / "tables" / "t"
    folder.mkdir(parents=True)
    con = duckdb.connect(str(home / "warehouse.duckdb"))
    con.execute(f"copy (select 1 as a) to '{folder}/part-0.parquet' (format parquet)")
    con.execute(f"create schema marts; create view marts.t as select * from read_parquet('{folder}/*.parquet')")
    con.close()
    return home


def _files(home):
    return {p.name: p.read_bytes() for p in (home / "spark" / "tables" / "t").iterdir()}


def test_the_views_over_spark_parquet_read_through_the_cli_and_the_api(home):
    assert run_cli("sql", "select a from marts.t", "--format", "csv", home=home).stdout.split() == ["a", "1"]
    assert biaswh.api.open(home).sql("select a from marts.t").to_dicts() == [{"a": 1}]


@pytest.mark.parametrize("write", WRITES)
def test_no_statement_writes_into_a_spark_tables_folder(home, write):
    before = _files(home)
    query = write.format(folder=home / "spark" / "tables" / "t")
    done = run_cli("sql", query, home=home, check=False)
    assert done.returncode == 2 and "not allowed" in done.stderr
    with pytest.raises(UserError, match="not allowed"):
        biaswh.api.open(home).sql(query)
    assert _files(home) == before
