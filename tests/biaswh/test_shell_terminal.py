"""`biaswh shell` on a real pseudo-terminal, as a person types: history, line editing, dot
commands, DuckDB's own error text, Ctrl-C that cancels a statement and keeps the shell, Ctrl-D.

It runs on the demo warehouse (the session's ``demo_site``), which it only reads.
"""

import io
import json
import os
import sys
import time

import pexpect
import pytest

from biaswh.sql_shell import HISTORY_FILE, shell
from biaswh.warehouse.settings.home import HOME_VARIABLE, REPOSITORY_ROOT
from tests.conftest import run_main

PROMPT = "biaswh> "
UP = "\x1b[A"


@pytest.fixture
def demo_home(demo_site, monkeypatch):
    home = demo_site.parent
    monkeypatch.setenv(HOME_VARIABLE, str(home))
    return home


# How the shell is started: from a terminal (SIGINT as the kernel's default), and in the
# background by a script without job control (`make test &`, CI runners, nohup wrappers), which
# starts it with SIGINT ignored: there Python keeps ignoring it, and the prompt lost every Ctrl-C.
STARTS = {"from a terminal": "", "inheriting SIGINT ignored": "trap '' INT; "}


@pytest.fixture(params=list(STARTS))
def terminal(demo_home, tmp_path, request):
    """A ``biaswh shell`` on a pseudo-terminal; the user's home (its history file) is ``tmp_path/user``."""
    user_home = tmp_path / "user"
    user_home.mkdir()
    env = {**os.environ, HOME_VARIABLE: str(demo_home), "HOME": str(user_home), "TERM": "dumb"}
    child = pexpect.spawn(
        "/bin/sh",
        ["-c", f'{STARTS[request.param]}exec "{sys.executable}" -m biaswh.cli shell'],
        env=env,
        cwd=str(REPOSITORY_ROOT),
        encoding="utf-8",
        timeout=60,
        dimensions=(50, 250),
    )
    child.expect_exact(PROMPT)
    yield child, user_home
    child.close(force=True)


def _threads_taking_ctrl_c(pid: int) -> list[str]:
    """The threads of process ``pid`` but its main one whose signal mask (``SigBlk`` in /proc, hex) lets SIGINT in."""
    taking = []
    for thread in os.listdir(f"/proc/{pid}/task"):
        if int(thread) == pid:
            continue
        with open(f"/proc/{pid}/task/{thread}/status", encoding="ascii") as status:
            fields = dict(line.rstrip("\n").split(":\t", 1) for line in status if ":\t" in line)
        if not int(fields["SigBlk"], 16) & (1 << (2 - 1)):  # SIGINT is signal 2
            taking.append(f"{thread} ({fields['Name']})")
    return taking


def _signal_state(child) -> str:
    """What the kernel says about SIGINT in the shell's process when a Ctrl-C went unanswered:
    each thread's blocked/pending/caught/ignored masks and current system call, the terminal's ISIG."""
    import termios

    lines = [f"ISIG={'on' if termios.tcgetattr(child.child_fd)[3] & termios.ISIG else 'off'}"]
    for thread in sorted(os.listdir(f"/proc/{child.pid}/task"), key=int):
        folder = f"/proc/{child.pid}/task/{thread}"
        with open(f"{folder}/status", encoding="ascii") as status:
            fields = dict(line.rstrip("\n").split(":\t", 1) for line in status if ":\t" in line)
        with open(f"{folder}/syscall", encoding="ascii") as call:
            syscall = call.read().split(" ", 1)[0]
        names = ("Name", "State", "SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt")
        shown = " ".join(f"{name}={fields[name]}" for name in names)
        lines.append(f"{thread}: {shown} syscall={syscall}")
    return "; ".join(lines)


def _answer(child, statement: str) -> str:
    """Type one line, Enter; the text printed up to the next prompt."""
    child.sendline(statement)
    child.expect_exact(PROMPT)
    return child.before


def test_a_scripted_session(terminal, demo_home):
    child, user_home = terminal
    assert "42" in _answer(child, "select 41 + 1 as answer;")

    child.send(UP)  # readline recalls the statement for editing; Enter runs it again
    child.expect_exact("select 41 + 1 as answer;")
    child.send("\r")
    child.expect_exact(PROMPT)
    assert "(1 row)" in child.before and "42" in child.before

    child.sendline("select count(*) as n_runs")
    child.expect_exact("   ...> ")  # the statement goes on until its ';'
    printed = _answer(child, "  from dim_runs;")
    assert "n_runs" in printed and "(1 row)" in printed

    assert ".schema NAME" in _answer(child, ".help")
    tables = _answer(child, ".tables")
    assert "dim_runs" in tables and "dialect_paired_tests" in tables
    schema = _answer(child, ".schema dim_runs")
    assert "run_id" in schema and "Id of the run" in schema  # the column's description, from the dbt docs

    error = _answer(child, "select * from dim_run;")
    assert 'Did you mean "dim_runs"?' in error  # DuckDB's hint, its excerpt and caret, whole
    assert "LINE 1: select * from dim_run;" in error and "^" in error

    child.sendline("select count(*) from range(10000000000);")
    child.expect_exact("range(10000000000);")
    time.sleep(1.0)  # the statement is running
    started = time.monotonic()
    child.sendintr()
    child.expect_exact("interrupted: the statement was cancelled")
    child.expect_exact(PROMPT)
    assert time.monotonic() - started < 10
    assert "7" in _answer(child, "select 7 as seven;")  # the same shell answers on
    # Only the main thread, where readline waits, can take a Ctrl-C: DuckDB's threads (started at
    # import, at connect and from the statement thread) and the statement thread block it.
    assert _threads_taking_ctrl_c(child.pid) == []

    child.send("select half a thought")
    child.expect_exact("select half a thought")  # echoed: readline holds the line, as when a person stops typing
    # A person's Ctrl-C comes a moment later. One landing while readline handles a key, before it
    # waits again, can be lost (CPython's select has no timeout): a person presses again.
    time.sleep(0.5)
    for _ in range(3):
        child.sendintr()  # at the prompt: the line is dropped, the shell stays
        if child.expect_exact([PROMPT, pexpect.TIMEOUT], timeout=5) == 0:
            break
    else:
        raise AssertionError("three Ctrl-C at the prompt went unanswered: " + _signal_state(child))
    assert "(1 row)" in _answer(child, "select 1 as one;")

    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert (user_home / HISTORY_FILE).stat().st_mode & 0o777 == 0o600
    history = (user_home / HISTORY_FILE).read_text(encoding="utf-8")
    assert "select 41 + 1 as answer;" in history and "select 7 as seven;" in history
    assert not (demo_home / HISTORY_FILE).exists() and not (REPOSITORY_ROOT / HISTORY_FILE).exists()


def _piped(typed: str) -> str:
    out = io.StringIO()
    shell(stdin=io.StringIO(typed), stdout=out)
    return out.getvalue()


def test_output_modes(demo_home):
    query = "select 1 as n, 'a, b' as label, null as missing;\n"
    text = _piped(f".mode line\n{query}.mode csv\n{query}.mode json\n{query}.mode table\n{query}")
    assert "      n = 1\n  label = a, b\nmissing = NULL\n" in text
    assert 'n,label,missing\n1,"a, b",\n' in text
    start = text.index("[")
    assert json.loads(text[start : text.index("]", start) + 1]) == [{"n": 1, "label": "a, b", "missing": None}]
    assert "n | label | missing" in text and "(1 row)" in text
    assert "choose one of table, csv, json, line" in _piped(".mode yaml\n")


def test_dot_command_mistakes_are_answered_and_the_shell_goes_on(demo_home):
    text = _piped(".schema no_such_relation\n.schema\n.tabels\nselect 5 as five;\n")
    assert "no table or view named 'no_such_relation'" in text
    assert "name a table or view" in text and ".tabels: unknown command" in text
    assert text.rstrip().endswith("(1 row)")


def test_biaswh_sql_shows_duckdbs_error_whole(demo_home, capsys):
    code, out, error = run_main(["sql", "select run_nmae from dim_runs"], capsys)
    assert code == 2 and out == ""
    first, *rest = error.splitlines()
    assert first == 'biaswh: error: SQL error: Binder Error: Referenced column "run_nmae" not found in FROM clause!'
    assert rest[0].startswith("Candidate bindings: ") and '"run_name"' in rest[0]
    assert rest[-2:] == ["LINE 1: select run_nmae from dim_runs", "               ^"]
