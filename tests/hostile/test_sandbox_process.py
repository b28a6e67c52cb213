"""Hostile SQL that would end the process: DuckDB's logging and profiling through the sandbox.

``lock_configuration`` does not cover ``enable_logging`` or ``enable_profiling``; with a file
as their storage, DuckDB aborts the process (C++ ``terminate``, exit 134) at the next statement,
since the sandbox forbids that file. Each form is refused in one line, exit 2, the warehouse
unchanged; two cases run the real command and a notebook-like Python process in a subprocess,
where an abort would show as exit 134.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap

import duckdb
import pytest

from biaswh.warehouse.database.sandbox import refuse_file_statements
from biaswh.warehouse.errors import UserError
from tests.conftest import REPOSITORY_ROOT, run_cli, run_main, seeded_squad_warehouse
from tests.hostile.warehouse_state import warehouse_state

CRASHING = "call enable_logging(storage = 'file', storage_path = '{logs}'); select 1"
FORMS = {
    "enable_logging to a file": CRASHING,
    "as a table function, quoted, in capitals": "select * from \"ENABLE_LOGGING\"(storage = 'file')",
    "qualified": "call system.main.enable_logging(level = 'trace')",
    "in a prepared statement": "prepare p as call enable_logging(storage = 'file', storage_path = '{logs}')",
    "in a macro": "create temp macro m() as table select * from enable_logging(); select 1",
    "built in query() from pieces": "select * from query('select * from enable_' || 'logging(storage=''file'')')",
    "profiling saved to a file": "call enable_profiling(format = 'json', save_location = '{logs}/p.json'); select 1",
    "profiling printed": "pragma enable_profiling; select 1",
    "disable_logging": "call disable_logging()",
    "truncate the logs": "call truncate_duckdb_logs()",
    "a pragma that changes the session": "pragma enable_checkpoint_on_shutdown",
    "a logging setting": "set logging_level = 'trace'",
    "a profiling output setting": "set profiling_output = '{logs}/p.json'",
    "the temporary folder": "set temp_directory = '{logs}'",
}


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return seeded_squad_warehouse(tmp_path_factory.mktemp("template"))


@pytest.fixture
def home(template, warehouse_home):
    warehouse_home.mkdir()
    shutil.copy(template, warehouse_home / "warehouse.duckdb")
    return warehouse_home


@pytest.mark.parametrize("form", FORMS)
def test_a_process_level_setting_is_refused_in_one_line(form, home, tmp_path, capsys):
    before = warehouse_state(home)
    code, out, error = run_main(["sql", FORMS[form].format(logs=tmp_path / "logs")], capsys)
    assert code == 2 and error.startswith("biaswh: error: ") and "Traceback" not in error, error
    assert len([line for line in error.splitlines() if not line.startswith(("LINE 1:", " "))]) == 1, error
    assert out == "" and warehouse_state(home) == before and not (tmp_path / "logs").exists()


def test_the_command_does_not_abort(home, tmp_path):
    completed = run_cli("sql", CRASHING.format(logs=tmp_path / "logs"), home=home, check=False)
    assert completed.returncode == 2, completed
    assert len(completed.stderr.splitlines()) == 1 and completed.stdout == "", completed
    assert not (tmp_path / "logs").exists()


def test_a_notebook_process_survives_and_reads_on(home, tmp_path):
    script = textwrap.dedent(
        f"""
        import biaswh
        from biaswh.warehouse.errors import UserError
        wh = biaswh.open({str(home)!r})
        try:
            wh.sql({CRASHING.format(logs=tmp_path / "logs")!r})
        except UserError as refused:
            print("refused")
        print(wh.sql("select 42 as answer")["answer"].to_list())
        """
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], cwd=REPOSITORY_ROOT, capture_output=True, text=True, timeout=300
    )
    assert completed.returncode == 0, completed
    assert completed.stdout.split() == ["refused", "[42]"], completed


def test_a_column_named_query_is_still_a_column(home, capsys):
    code, out, _ = run_main(["sql", "select query from (select 'x' as query)", "--csv"], capsys)
    assert code == 0 and out.splitlines() == ["query", "x"]


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("select * from \"ENABLE_LOGGING\"(storage = 'file')", "enable_logging"),
        ("call Disable_Profiling()", "disable_profiling"),
        ("select 1; select * from \"Query\"('select 2')", "query"),
    ],
)
def test_a_refused_function_is_named_however_it_is_quoted_or_cased(query, name):
    with pytest.raises(UserError) as refused:
        refuse_file_statements(duckdb.connect(), query)
    assert str(refused.value) == (
        f"sql: {name}() is not allowed: biaswh sql cannot change logging or profiling, or run SQL"
        " from a string (it reads the warehouse's tables)"
    )


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("select 1; COPY (select 1) TO 'x.csv'", "COPY"),
        ("detach database other", "DETACH"),
        ("pragma enable_checkpoint_on_shutdown", "a PRAGMA that changes the session"),
    ],
)
def test_a_refused_statement_is_named_with_what_to_do_instead(query, name):
    with pytest.raises(UserError) as refused:
        refuse_file_statements(duckdb.connect(), query)
    assert str(refused.value) == (
        f"sql: {name} is not allowed: biaswh sql only reads the warehouse (write a result with --out FILE)"
    )


@pytest.mark.parametrize(
    "query",
    [
        'select 1 as "ENABLE_LOGGINGX"',  # a longer name that only starts like a refused one
        "select 'enable_logging()' as said",  # a string, not a name
        "select 1 as query",  # query() is refused only when called
        "select query from (select 1 as query)",
    ],
)
def test_a_name_that_only_resembles_a_refused_function_runs(query):
    con = duckdb.connect()
    refuse_file_statements(con, query)
    assert con.execute(query).fetchall() != []
