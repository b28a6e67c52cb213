import csv
import io
import subprocess
import sys
import textwrap

import pytest

from biaswh.warehouse.database.connection import open_warehouse
from biaswh.warehouse.settings.home import HOME_VARIABLE
from tests.conftest import DEMO_DATA, REPOSITORY_ROOT, run_cli
from tests.fingerprints import raw_fingerprint

COMMANDS = [
    [],
    ["ingest"],
    ["ingest", "squad"],
    ["ingest", "pairs"],
    ["build"],
    ["analyze"],
    ["dashboards"],
    ["run"],
    ["sql"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "biaswh")
def test_every_command_has_help(command, warehouse_home):
    completed = run_cli(*command, "--help", home=warehouse_home)
    assert completed.stdout.startswith("usage: biaswh")


def test_ingest_then_sql_table_and_csv(warehouse_home):
    loaded = run_cli("ingest", "squad", str(DEMO_DATA / "squad_demo.json"), home=warehouse_home)
    assert "loaded 64 rows" in loaded.stdout
    again = run_cli("ingest", "squad", str(DEMO_DATA / "squad_demo.json"), home=warehouse_home)
    assert "unchanged" in again.stdout
    table = run_cli("sql", "select split, count(*) as n from squad_questions group by split", home=warehouse_home)
    assert "train" in table.stdout and "64" in table.stdout and "(1 row)" in table.stdout
    as_csv = run_cli(
        "sql",
        "select row_idx, question from raw.squad_questions order by row_idx limit 2",
        "--csv",
        home=warehouse_home,
    )
    rows = list(csv.reader(io.StringIO(as_csv.stdout)))
    assert rows[0] == ["row_idx", "question"] and rows[1] == ["0", "Who grows food in a community garden?"]


def test_user_mistakes_end_with_one_line_and_exit_2(warehouse_home, tmp_path):
    bad = tmp_path / "pairs.csv"
    bad.write_text("id,squad_idx,sae_query,aave_query\n1,0,a,b\n", encoding="utf-8")
    completed = run_cli("ingest", "pairs", str(bad), home=warehouse_home, check=False)
    assert completed.returncode == 2
    assert completed.stderr.strip().count("\n") == 0
    assert "SQuAD split 'train' is not in the warehouse" in completed.stderr
    missing = run_cli("ingest", "squad", str(tmp_path / "nope.json"), home=warehouse_home, check=False)
    assert missing.returncode == 2 and "no such file" in missing.stderr and "Traceback" not in missing.stderr
    run_cli("ingest", "squad", str(DEMO_DATA / "squad_demo.json"), home=warehouse_home)
    with open_warehouse(read_only=True) as con:
        runs_before = raw_fingerprint(con)["runs"]
    sql = run_cli("sql", "delete from raw.runs", home=warehouse_home, check=False)
    assert sql.returncode == 2 and "Traceback" not in sql.stderr and sql.stderr.count("\n") == 1
    assert (
        'Cannot execute statement of type "DELETE" on database "warehouse" which is attached in read-only mode'
        in sql.stderr
    )
    with open_warehouse(read_only=True) as con:
        assert raw_fingerprint(con)["runs"] == runs_before and runs_before[0] == 1


def test_second_writer_gets_warehouse_is_busy(warehouse_home):
    run_cli("ingest", "squad", str(DEMO_DATA / "squad_demo.json"), home=warehouse_home)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent("""
            import sys, duckdb
            con = duckdb.connect(sys.argv[1])
            print("locked", flush=True)
            sys.stdin.readline()
        """),
            str(warehouse_home / "warehouse.duckdb"),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPOSITORY_ROOT,
        env={"PATH": "", HOME_VARIABLE: str(warehouse_home)},
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        completed = run_cli(
            "ingest", "pairs", str(DEMO_DATA / "dialect_pairs_demo.csv"), home=warehouse_home, check=False
        )
        assert completed.returncode == 2
        assert "warehouse is busy" in completed.stderr and "Traceback" not in completed.stderr
        assert f"process {holder.pid} is using" in completed.stderr  # DuckDB's lock error names the holder
    finally:
        holder.communicate("\n", timeout=30)
    after = run_cli("ingest", "pairs", str(DEMO_DATA / "dialect_pairs_demo.csv"), home=warehouse_home)
    assert "loaded 84 rows" in after.stdout


def test_a_run_ends_without_teardown_after_its_threads_exit_handlers_and_output(tmp_path):
    marks = tmp_path / "marks.txt"
    script = textwrap.dedent(
        f"""
        import atexit, sys, threading, time
        from biaswh.warehouse.runs.processes import exit_without_teardown
        def mark(text):
            with open({str(marks)!r}, "a") as out:
                out.write(text)
        atexit.register(mark, "exit handler;")
        threading.Thread(target=lambda: (time.sleep(0.3), mark("thread;"))).start()
        sys.stdout.write("last line, not flushed")
        exit_without_teardown(3)
        mark("unreachable;")
        """
    )
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPOSITORY_ROOT)
    assert completed.returncode == 3
    assert completed.stdout == "last line, not flushed"
    assert marks.read_text() == "thread;exit handler;"
