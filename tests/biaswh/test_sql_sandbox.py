"""`biaswh sql` and `biaswh shell` cannot write, read files (the warehouse's own included) or change settings.

Every refused case is one line, exit code 2, and leaves the warehouse folder as it was: the
same files (no WAL, no leftover private folder) and the same sha256 of ``warehouse.duckdb``. The
private folder the warehouse is read through: test_sql_sandbox_private_folder.py (both read the
warehouse ``loaded_home`` of tests/biaswh/conftest.py).
"""

import io

import pytest

from biaswh.cli import main
from biaswh.sql_shell import shell
from biaswh.warehouse.database.sandbox import SCRATCH_PREFIX
from tests.biaswh.sandbox_home import warehouse_state

PERMISSION = "Permission Error"
NOT_ALLOWED = "is not allowed: biaswh sql only reads the warehouse"
INSIDE = "is inside the warehouse folder"
OWN = "is the warehouse's own file"


def _read_blob(path: str) -> list[str]:
    return ["sql", f"select content from read_blob('{path}')"]


# name: (biaswh arguments, expected exit code, fragment of the one-line error). {db} is the
# warehouse file's absolute path, {home} its folder; relative paths start in tmp_path.
CASES = {
    "copy to the warehouse": (["sql", "copy (select 'x' as a) to '{db}' (format csv)"], 2, NOT_ALLOWED),
    "copy to the warehouse in place": (
        ["sql", "copy (select 'x' a) to 'warehouse/warehouse.duckdb' (format csv, use_tmp_file false)"],
        2,
        NOT_ALLOWED,
    ),
    "copy to its wal": (["sql", "copy (select 'x' a) to '{db}.wal' (format csv, use_tmp_file false)"], 2, NOT_ALLOWED),
    "copy after a comment, upper case": (["sql", "/* x */ COPY (SELECT 1 AS a) TO 'out/x.csv'"], 2, NOT_ALLOWED),
    "copy as the second statement": (["sql", "select 1; copy (select 1 as a) to 'out/x.csv'"], 2, NOT_ALLOWED),
    "copy from a file": (["sql", "copy raw.runs from 'readable.csv'"], 2, NOT_ALLOWED),
    "prepared copy": (["sql", "prepare p as copy (select 1 as a) to '{db}' (format csv)"], 2, PERMISSION),
    "export database": (["sql", "export database 'out/export'"], 2, NOT_ALLOWED),
    "attach another file": (["sql", "attach 'out/other.duckdb' as other"], 2, NOT_ALLOWED),
    "attach its wal": (["sql", "attach '{db}.wal' as other"], 2, NOT_ALLOWED),
    "read the warehouse as bytes": (_read_blob("{db}"), 2, PERMISSION),
    "read it by a relative path": (_read_blob("warehouse/warehouse.duckdb"), 2, PERMISSION),
    "read it through ..": (_read_blob("out/../warehouse/warehouse.duckdb"), 2, PERMISSION),
    "read it through a file link": (_read_blob("link-db"), 2, PERMISSION),
    "read it through a folder link": (_read_blob("link-home/warehouse.duckdb"), 2, PERMISSION),
    "read its wal": (_read_blob("{db}.wal"), 2, PERMISSION),
    "read its open file descriptors": (_read_blob("/proc/self/fd/*"), 2, PERMISSION),
    "read another file in its folder": (["sql", "select * from read_text('{home}/warehouse.lock')"], 2, PERMISSION),
    "read a file elsewhere": (["sql", "select * from read_csv('readable.csv')"], 2, PERMISSION),
    "read a file through query()": (
        ["sql", "select * from query('select * from read_blob(''{db}'')')"],
        2,
        "query() is not allowed",
    ),
    "install": (["sql", "install httpfs"], 2, PERMISSION),
    "load": (["sql", "load httpfs"], 2, PERMISSION),
    "set": (["sql", "set threads = 1"], 2, "the configuration has been locked"),
    "set external access back on": (["sql", "set enable_external_access = true"], 2, "configuration has been locked"),
    "write": (["sql", "delete from raw.runs"], 2, "read-only mode"),
    "--out the warehouse": (["sql", "select 1 as a", "--csv", "--out", "{db}"], 2, OWN),
    "--out it relatively": (["sql", "select 1 as a", "--csv", "--out", "warehouse/warehouse.duckdb"], 2, OWN),
    "--out its wal": (["sql", "select 1 as a", "--csv", "--out", "warehouse/warehouse.duckdb.wal"], 2, INSIDE),
    "--out through ..": (["sql", "select 1 as a", "--csv", "--out", "out/../warehouse/warehouse.duckdb"], 2, OWN),
    "--out through a file link": (["sql", "select 1 as a", "--csv", "--out", "link-db"], 2, OWN),
    "--out a hard link of it": (["sql", "select 1 as a", "--csv", "--out", "hard-db"], 2, OWN),
    "--out through a folder link": (["sql", "select 1 as a", "--out", "link-home/new.txt"], 2, INSIDE),
    "--out a new file in the folder": (["sql", "select 1 as a", "--format=json", "--out", "{home}/x.json"], 2, INSIDE),
    "--out the folder itself": (["sql", "select 1 as a", "--csv", "--out", "link-home"], 2, INSIDE),
    "--out parquet over the warehouse": (["sql", "select 1 as a", "--format", "parquet", "--out", "{db}"], 2, OWN),
    "--out a missing folder": (["sql", "select 1 as a", "--csv", "--out", "nowhere/x.csv"], 2, "no such folder"),
    "--out a folder": (["sql", "select 1 as a", "--csv", "--out", "out"], 2, "is a folder"),
}


@pytest.mark.parametrize("name", CASES)
def test_nothing_typed_reaches_the_warehouse_files(name, loaded_home, tmp_path, capsys):
    args, code, fragment = CASES[name]
    before = warehouse_state(loaded_home)
    db = loaded_home / "warehouse.duckdb"
    assert main([a.format(db=db, home=loaded_home) for a in args]) == code
    error = capsys.readouterr().err
    first, *excerpt = error.splitlines()
    assert first.startswith("biaswh: error: ") and fragment in first, error
    assert "Traceback" not in error
    # Below the one refusal line, only DuckDB's own pointer at the fault: "LINE 1: ..." and its caret.
    assert excerpt == [] or (len(excerpt) == 2 and excerpt[0].startswith("LINE 1: ") and excerpt[1].strip() == "^")
    assert warehouse_state(loaded_home) == before
    assert list((tmp_path / "out").iterdir()) == []


def test_the_shell_refuses_the_same_and_goes_on(loaded_home):
    before = warehouse_state(loaded_home)
    db = loaded_home / "warehouse.duckdb"
    typed = (
        f"copy (select 'x' as a) to '{db}' (format csv, use_tmp_file false);\n"
        f"select content from read_blob('{db}');\n"
        "select count(*) as n from squad_questions;\n"
    )
    out = io.StringIO()
    shell(stdin=io.StringIO(typed), stdout=out)
    lines = out.getvalue().splitlines()
    assert NOT_ALLOWED in lines[1] and PERMISSION in lines[2]
    assert lines[3].startswith("LINE 1: select content from read_blob(") and lines[4].strip() == "^"
    assert lines[5:8] == ["n ", "--", "64"]
    assert warehouse_state(loaded_home) == before


def test_a_normal_select_still_works_and_writes_its_out_file_elsewhere(loaded_home, tmp_path, capsys):
    assert main(["sql", "select split, count(*) as n from squad_questions group by split", "--csv"]) == 0
    assert capsys.readouterr().out.splitlines() == ["split,n", "train,64"]
    assert main(["sql", "select 1 as a", "--csv", "--out", "out/a.csv"]) == 0
    assert (tmp_path / "out" / "a.csv").read_text(encoding="utf-8") == "a\n1\n"
    assert not list(loaded_home.glob(f"{SCRATCH_PREFIX}*"))  # the private folder is gone


@pytest.mark.parametrize("query", ["", "   ", ";", "-- only a comment"])
def test_an_empty_query_is_one_line_and_exit_2(query, loaded_home, capsys):
    assert main(["sql", query]) == 2
    error = capsys.readouterr().err
    assert error.startswith("biaswh: error: sql: the query") and error.count("\n") == 1
