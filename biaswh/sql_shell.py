"""``biaswh shell``: an interactive, read-only SQL prompt on the sandboxed warehouse connection.

On a terminal it behaves as SQL clients do: line editing and history (GNU readline; the history
is kept in ``~/.biaswh_history``, outside the repository and the warehouse), statements over
several lines until a ``;``, dot commands (``.help``), Ctrl-C cancels the running statement
(:meth:`duckdb.DuckDBPyConnection.interrupt`) or clears the line being typed, Ctrl-D leaves.
Piped input runs the same statements without prompts. Errors are DuckDB's own text, whole.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import duckdb

from biaswh.adhoc_sql import SEARCH_PATH, Rows, SqlError, csv_text, fetch_rows, format_table, json_text
from biaswh.signals import helper_threads_without_ctrl_c
from biaswh.warehouse.database.output_files import refuse_link, replacing
from biaswh.warehouse.database.sandbox import open_sandbox
from biaswh.warehouse.errors import UserError

HISTORY_FILE = ".biaswh_history"  # in the user's home folder
HISTORY_LENGTH = 2000
MODES = ("table", "csv", "json", "line")
PROMPT, CONTINUATION = "biaswh> ", "   ...> "
HELP = """\
Statements end with ';' and may span lines. Unqualified names search marts, analysis,
intermediate, staging, raw and main. The connection is read-only and cannot reach files.
  .help                        this text
  .tables                      every relation: schema, name, type
  .schema NAME                 NAME's columns with their types and descriptions
  .mode table|csv|json|line    how results are shown (now: {mode})
  .quit                        leave (as does Ctrl-D)
Ctrl-C cancels the running statement, or clears the line being typed. Up and Down recall history."""


def format_lines(table: Rows) -> str:
    """One ``column = value`` line per column, rows separated by a blank line (sqlite's line mode)."""
    width = max((len(name) for name in table.columns), default=0)
    rows = [
        "\n".join(
            f"{name.rjust(width)} = {'NULL' if value is None else value}" for name, value in zip(table.columns, row)
        )
        for row in table.rows
    ]
    return "\n\n".join(rows) + ("\n" if rows else "")


RENDER = {
    "table": lambda table: format_table(table) + "\n",
    "csv": csv_text,
    "json": json_text,
    "line": format_lines,
}


TABLES_QUERY = (
    "select table_schema as schema, table_name as name, lower(table_type) as type"
    " from information_schema.tables where table_schema <> 'information_schema' order by 1, 2"
)


def _schema(con: duckdb.DuckDBPyConnection, name: str) -> Rows:
    """The columns of relation ``name`` (``schema.name`` or found through the search path), in order."""
    schema, _, relation = name.rpartition(".")
    candidates = [schema] if schema else list(SEARCH_PATH)
    found = con.execute(
        "select schema_name, table_name from duckdb_columns() where table_name = ? and list_contains(?, schema_name)"
        " group by all",
        [relation, candidates],
    ).fetchall()
    if not found:
        raise UserError(f".schema: no table or view named {name!r} (.tables lists them)")
    home = min(found, key=lambda row: candidates.index(row[0]))[0]  # the one an unqualified query reads
    rows = con.execute(
        "select column_name, data_type, coalesce(comment, '') from duckdb_columns()"
        " where schema_name = ? and table_name = ? order by column_index",
        [home, relation],
    ).fetchall()
    return Rows(["column", "type", "description"], rows)


@contextmanager
def _ctrl_c_sets(flag: threading.Event) -> Iterator[None]:
    """While a statement runs, Ctrl-C sets ``flag`` instead of raising KeyboardInterrupt.

    An exception could land anywhere, between starting the worker and waiting for it too, and
    leave a statement running unseen; a flag cannot. (Outside the main thread signals are not ours.)
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, lambda signum, frame: flag.set())
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def _ctrl_c_at_the_prompt() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt at the prompt whatever the shell inherited, as psql's does.

    A command started in the background by a script (``cmd &`` without job control, as CI
    runners and ``nohup`` wrappers do) inherits SIGINT ignored, and Python keeps it ignored: the
    prompt then never saw a Ctrl-C (measured: six in a row lost, ``SigIgn`` showing SIGINT),
    while a running statement still could be cancelled (its handler is set per statement).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class _Session:
    """One shell: the connection, the output mode, and the statement being typed."""

    def __init__(self, con: duckdb.DuckDBPyConnection, stdout):
        self.con, self.stdout, self.mode = con, stdout, "table"

    def show(self, table: Rows | None) -> None:
        if table is not None:
            self.stdout.write(RENDER[self.mode](table))

    def dot_command(self, line: str) -> bool:
        """Run one dot command; False when it asks to leave."""
        command, _, argument = line.partition(" ")
        argument = argument.strip().rstrip(";")
        if command in (".quit", ".exit"):
            return False
        if command == ".help":
            self.stdout.write(HELP.format(mode=self.mode) + "\n")
        elif command == ".tables":
            self.stdout.write(format_table(fetch_rows(self.con, TABLES_QUERY), max_rows=10_000) + "\n")
        elif command == ".schema" and argument:
            # Descriptions whole: they are the documentation of the warehouse.
            self.stdout.write(format_table(_schema(self.con, argument), max_rows=10_000, max_width=1000) + "\n")
        elif command == ".mode" and argument in MODES:
            self.mode = argument
        elif command == ".mode":
            self.stdout.write(f".mode: choose one of {', '.join(MODES)} (now: {self.mode})\n")
        elif command == ".schema":
            self.stdout.write(".schema: name a table or view, e.g. .schema dim_runs\n")
        else:
            self.stdout.write(f"{command}: unknown command; .help lists them\n")
        return True

    def run(self, query: str) -> None:
        """Run one statement on a worker thread, so Ctrl-C here can interrupt it there."""
        outcome: dict = {}
        finished = threading.Event()

        def work() -> None:
            try:
                outcome["table"] = fetch_rows(self.con, query)
            except BaseException as exc:  # handed to the main thread, which reports it
                outcome["error"] = exc
            finally:
                finished.set()

        interrupted = threading.Event()
        with _ctrl_c_sets(interrupted):
            # Started with SIGINT blocked: this thread and the threads DuckDB starts from it while
            # the statement runs keep it blocked, so a later Ctrl-C at the prompt reaches readline.
            with helper_threads_without_ctrl_c():
                threading.Thread(target=work, name="biaswh-shell-query", daemon=True).start()
            while not finished.wait(0.05):  # an Event, not Thread.join: Ctrl-C must not lose the thread
                if interrupted.is_set():
                    # Again until the statement ends: an interrupt before DuckDB has begun it is lost.
                    self.con.interrupt()
        error = outcome.get("error")
        if interrupted.is_set() or isinstance(error, duckdb.InterruptException):
            self.stdout.write("interrupted: the statement was cancelled\n")
        elif isinstance(error, SqlError):
            self.stdout.write(error.full_text() + "\n")
        elif isinstance(error, UserError):
            self.stdout.write(f"{error}\n")
        elif error is not None:
            raise error
        else:
            self.show(outcome.get("table"))


def _history() -> Path | None:
    """Turn on readline editing with the history file; its path (None where readline is missing).

    Raises
    ------
    OutputRefused
        When the history file is a symbolic link or has other names: it is never written through one.
    """
    try:
        import readline
    except ImportError:  # a Python built without readline: plain input, still usable
        return None
    path = Path.home() / HISTORY_FILE
    refuse_link(path, what="the shell's history")
    try:
        readline.read_history_file(path)
    except OSError:  # the first session, or an unreadable file: start empty
        pass
    readline.set_history_length(HISTORY_LENGTH)
    return path


def _save_history(path: Path | None) -> None:
    """Write the history as a new file that replaces the old one (never through a link)."""
    if path is not None:
        import readline

        try:
            refuse_link(path, what="the shell's history")
            with replacing(path, mode=0o600) as temporary:  # the user's own queries, as a shell's history is
                readline.write_history_file(temporary)
        except (OSError, UserError):  # a read-only home, a link made during the session: history not kept
            pass


def shell(*, stdin=None, stdout=None) -> None:
    """An interactive SQL prompt on the sandboxed connection (see the module docstring).

    With ``stdin`` given or not a terminal, lines are read as they come, without prompts or history.
    """
    stdout = stdout or sys.stdout
    interactive = stdin is None and sys.stdin.isatty()
    stdin = stdin or sys.stdin
    history = _history() if interactive else None  # a history file that is a link is refused first
    with contextlib.ExitStack() as opened:
        with helper_threads_without_ctrl_c():
            con = opened.enter_context(open_sandbox(SEARCH_PATH))
        session = _Session(con, stdout)
        stdout.write("biaswh shell: read-only SQL on the warehouse. .help for help, .quit or Ctrl-D to leave.\n")
        if interactive:
            opened.enter_context(_ctrl_c_at_the_prompt())
        try:
            _loop(session, stdin, interactive=interactive)
        finally:
            _save_history(history)


def _loop(session: _Session, stdin, *, interactive: bool) -> None:
    buffer: list[str] = []
    while True:
        try:
            if interactive:
                line = input(CONTINUATION if buffer else PROMPT)
            else:
                line = stdin.readline()
                if not line:
                    break
            if not _take(session, line, buffer):
                break
        except KeyboardInterrupt:
            # At the prompt (or between statements, where Python may deliver a Ctrl-C typed
            # while readline was busy): drop what was typed, keep the shell.
            session.stdout.write("\n")
            buffer.clear()
        except EOFError:  # Ctrl-D
            session.stdout.write("\n")
            break


def _take(session: _Session, line: str, buffer: list[str]) -> bool:
    """Add one typed line: run a dot command or a statement complete with ';'. False: leave."""
    stripped = line.strip()
    if not buffer and stripped.startswith("."):
        try:
            # Their quick queries run here, on the main thread: the threads DuckDB starts for them
            # must block SIGINT too (a `.schema` started two, one of which took the prompt's Ctrl-C).
            with helper_threads_without_ctrl_c():
                return session.dot_command(stripped)
        except UserError as exc:
            session.stdout.write(f"{exc}\n")
            return True
    if stripped or buffer:
        buffer.append(line.rstrip("\n"))
    if stripped.endswith(";"):
        query = "\n".join(buffer)
        buffer.clear()
        session.run(query)
        session.stdout.flush()
    return True
