"""The connection ad hoc SQL runs on (``biaswh sql``, ``biaswh shell``), and where its output may go.

DuckDB locks a connection down with ``enable_external_access = false``, but it keeps the
database's own files open to every query: it adds the database file, its ``.wal`` (and
``.wal.checkpoint``, ``.wal.recovery``) to ``allowed_paths`` and its temp folder to
``allowed_directories``, and resolves symbolic links (``/proc/self/fd/N`` included) before it
compares. DuckDB 1.5 adds them again whenever external access is switched off, and refuses to
change either list once it is off. So a query on the warehouse opened by its own path could
``copy ... to`` that path (overwriting the warehouse) or ``read_blob`` it.

So the sandbox opens the warehouse through a hard link in a fresh private folder
(``$BIASWH_HOME/.sandbox-<pid>-<random>/warehouse.duckdb``, and the WAL beside it when there
is one) and removes the links as soon as the file is open. DuckDB then allows only paths in
that folder, which hold nothing of the warehouse; the warehouse's own path, its WAL and
everything else under ``BIASWH_HOME`` are refused by DuckDB itself. The open file is the same
inode, so DuckDB's lock still tells writers the warehouse is in use. Large queries spill to
the private folder, which is removed when the connection closes.

A symbolically linked warehouse file is linked by its real file (so the link's target is not
on DuckDB's list either). Where no hard link can be made anywhere (another file system, no
folder this user can write), the real file is opened only if this user cannot write it.

On top of that, statements whose only use is to write or reach files (``COPY``, ``EXPORT``,
``ATTACH``, ``DETACH``) are refused before they run, read by DuckDB's own parser, and so are
the calls that change the database instance's logging and profiling, which
``lock_configuration`` does not cover: ``enable_logging(storage = 'file')`` or
``enable_profiling(save_location = ...)`` makes DuckDB abort the whole process (a C++
``terminate``) at the next statement, since the sandbox forbids the file it then writes. PRAGMA
statements that are not queries are refused with them; ``query()``, which runs SQL from a string
the checks cannot read, is refused too. ``biaswh sql --out`` writes results through
:func:`biaswh.warehouse.database.output_files.checked_output`.
"""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence

import duckdb

from biaswh.warehouse.database.connection import close_stopping_queries, open_file
from biaswh.warehouse.database.parquet_views import (
    IN_THE_FOLDER,
    folders_named_from_home,
    home_directory_config,
    parquet_view_folders,
)
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.relations.column_docs import sql_string
from biaswh.warehouse.runs.processes import process_alive
from biaswh.warehouse.settings.home import HOME_VARIABLE, WarehousePaths, duckdb_memory_limit, warehouse_paths

SANDBOX_CONFIG = {
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
    "allow_unsigned_extensions": False,
}
SCRATCH_PREFIX = ".sandbox-"
REFUSED_STATEMENTS = {
    duckdb.StatementType.COPY: "COPY",
    duckdb.StatementType.COPY_DATABASE: "COPY FROM DATABASE",
    duckdb.StatementType.EXPORT: "EXPORT DATABASE",
    duckdb.StatementType.ATTACH: "ATTACH",
    duckdb.StatementType.DETACH: "DETACH",
    duckdb.StatementType.PRAGMA: "a PRAGMA that changes the session",
}
# Table functions that change the database instance (not a setting lock_configuration guards), and
# query(), which would run a string the checks cannot read as SQL.
REFUSED_FUNCTIONS = frozenset(
    {
        "enable_logging",
        "disable_logging",
        "truncate_duckdb_logs",
        "enable_profiling",
        "disable_profiling",
        "query",
    }
)


def _tokens(query: str) -> list[tuple[str, duckdb.token_type]]:
    """DuckDB's tokens of ``query``: (text, type), quoted identifiers unquoted and in lower case."""
    found = duckdb.tokenize(query)
    tokens = []
    for (start, kind), (end, _) in zip(found, [*found[1:], (len(query), None)]):
        text = query[start:end].strip()
        if kind == duckdb.token_type.identifier:
            text = text.strip('"').replace('""', '"').lower()
        tokens.append((text, kind))
    return tokens


def _refused_function(query: str) -> str | None:
    """The first function of :data:`REFUSED_FUNCTIONS` that ``query`` names (``query`` only when called)."""
    try:
        tokens = _tokens(query)
    except duckdb.Error:
        return None
    for (text, kind), (after, _) in zip(tokens, [*tokens[1:], ("", None)]):
        if kind != duckdb.token_type.identifier or text not in REFUSED_FUNCTIONS:
            continue
        if text != "query" or after.startswith("("):
            return text
    return None


def refuse_file_statements(con: duckdb.DuckDBPyConnection, query: str) -> None:
    """Refuse ``query`` when one of its statements is a COPY, EXPORT, ATTACH, DETACH or PRAGMA, or
    it names a function of :data:`REFUSED_FUNCTIONS` (logging, profiling, ``query()``).

    DuckDB's parser and tokenizer classify the statements and names, so comments, case and quoting
    cannot hide one. A query that does not parse is left to ``execute``, which reports the
    parser's error.
    """
    function = _refused_function(query)
    if function:
        raise UserError(
            f"sql: {function}() is not allowed: biaswh sql cannot change logging or profiling, or run SQL"
            " from a string (it reads the warehouse's tables)"
        )
    try:
        statements = con.extract_statements(query)
    except duckdb.Error:
        return
    for statement in statements:
        name = REFUSED_STATEMENTS.get(statement.type)
        if name:
            raise UserError(
                f"sql: {name} is not allowed: biaswh sql only reads the warehouse (write a result with --out FILE)"
            )


def _clear_stale_scratch(folder: Path) -> None:
    """Remove private folders left by sandbox processes that were killed before cleaning up."""
    for scratch in folder.glob(f"{SCRATCH_PREFIX}*"):
        pid = scratch.name[len(SCRATCH_PREFIX) :].split("-")[0]
        if pid.isdigit() and int(pid) != os.getpid() and not process_alive(int(pid)):
            shutil.rmtree(scratch, ignore_errors=True)


def _scratch_folders(paths: WarehousePaths, real: Path) -> list[Path]:
    """Where a private folder may go: on the real file's file system (a hard link needs it),
    the warehouse folder first, then the real file's folder, then the temporary folder."""
    candidates = dict.fromkeys([paths.home, real.parent, Path(tempfile.gettempdir()).resolve()])
    device = real.stat().st_dev
    return [c for c in candidates if c.is_dir() and c.stat().st_dev == device]


def _linked_alias(paths: WarehousePaths) -> tuple[Path, Path]:
    """A private folder with hard links to the warehouse's real file (and its WAL); returns (folder, alias).

    The real file, not the name: a symbolic link (absolute or relative) would lead DuckDB back
    to the warehouse's path, which it would then allow.
    """
    real = paths.duckdb_file.resolve()
    failure: OSError = OSError(errno.EXDEV, "no folder on the warehouse's file system to link it in")
    for folder in _scratch_folders(paths, real):
        _clear_stale_scratch(folder)
        try:
            scratch = Path(tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-", dir=folder))
        except OSError as exc:
            failure = exc
            continue
        alias = scratch / paths.duckdb_file.name
        try:
            os.link(real, alias)
            # DuckDB keeps the WAL beside the real file (it resolves links); one left by a crashed
            # writer holds committed changes a read-only open replays.
            wal = real.with_name(real.name + ".wal")
            if wal.exists():
                os.link(wal, alias.with_name(alias.name + ".wal"))
        except OSError as exc:
            shutil.rmtree(scratch, ignore_errors=True)
            failure = exc
            continue
        return scratch, alias
    raise failure


def _open_alias(paths: WarehousePaths, config: dict) -> tuple[duckdb.DuckDBPyConnection, Path | None]:
    """The read-only connection through a hard link, and its private folder.

    Where no link can be made (a file system without hard links, a warehouse folder this user
    cannot write), the real path is opened only if this user cannot write the file either:
    then DuckDB's list is moot, the operating system refuses the write.
    """
    try:
        scratch, alias = _linked_alias(paths)
    except OSError as exc:
        real = paths.duckdb_file.resolve()
        wal = real.with_name(real.name + ".wal")
        if os.access(real, os.W_OK) or (wal.exists() and os.access(wal, os.W_OK)):
            raise UserError(
                f"sql: cannot open {paths.duckdb_file} safely: making a hard link beside it failed"
                f" ({exc.strerror or exc}); put {HOME_VARIABLE} on a file system with hard links"
            ) from None
        return open_file(real, read_only=True, config=config, shown=paths.duckdb_file), None
    try:
        try:
            con = open_file(alias, read_only=True, config=config, shown=paths.duckdb_file)
        finally:
            for link in list(scratch.iterdir()):
                if not link.is_dir():
                    link.unlink()  # the open file stays open; its path no longer leads to the warehouse
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    return con, scratch


def _home_patterns(con: duckdb.DuckDBPyConnection, home: Path) -> list[str]:
    """The ``~/...`` folders the views name, as allowed_directories entries.

    DuckDB checks a glob's pattern (``~/spark/.../run_id=*/*.parquet``) before it expands ``~`` with
    ``home_directory``, and expands it for that check with the process's ``$HOME``; the files it
    then finds are checked by their real paths. So an entry is listed only where ``$HOME`` holds
    no such folder, or the same one: it then allows nothing the views do not read.
    """
    entries = []
    for named in folders_named_from_home(con):
        seen_by_the_check = Path(os.path.expanduser(named))
        ours = home / named[len(IN_THE_FOLDER) :].lstrip("/")
        if not seen_by_the_check.exists() or seen_by_the_check.resolve() == ours.resolve():
            entries.append(named.rstrip("/") + "/")
    return entries


@contextmanager
def open_sandbox(search_path: Sequence[str] = ()) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection for ad hoc SQL that cannot touch anything but the warehouse's tables.

    DuckDB itself refuses, on this connection, writes to the warehouse, any file access
    (``COPY ... TO``, ``EXPORT DATABASE``, ``ATTACH``, ``read_blob``, ``read_csv``) including
    the warehouse file, its WAL and everything under ``BIASWH_HOME``, installing or loading
    extensions, and changing settings (``lock_configuration``). Readable besides: the Parquet
    folders the warehouse's views read (a Spark build's tables, :mod:`biaswh.warehouse.database.parquet_views`);
    DuckDB would let a COPY write there too, so :func:`refuse_file_statements`, which every entry
    point runs first, is what refuses writing into them.
    ``search_path`` lists the
    schemas unqualified names resolve through; those that do not exist are skipped.
    """
    paths = warehouse_paths()
    if not paths.duckdb_file.exists():
        raise UserError(f"no warehouse at {paths.duckdb_file}: run an ingest or `make demo` first")
    # External access goes off once the folders of the views over Parquet are allowed: DuckDB
    # takes allowed_directories only from a started database, and no query has run before.
    opening = {key: value for key, value in SANDBOX_CONFIG.items() if key != "enable_external_access"}
    # home_directory: the warehouse's folder, not the alias's, so its views read the lake in it.
    config = {**opening, "memory_limit": duckdb_memory_limit(), **home_directory_config(paths.home)}
    con, scratch = _open_alias(paths, config)
    try:
        # Never a folder holding the warehouse file: its path stays refused.
        home = paths.home.resolve()
        folders = [f.rstrip("/") + "/" for f in parquet_view_folders(con) if not home.is_relative_to(Path(f).resolve())]
        folders += _home_patterns(con, home)
        if folders:
            listed = ", ".join(sql_string(folder) for folder in folders)
            con.execute(f"set allowed_directories = [{listed}]")
        con.execute("set enable_external_access = false")
        existing = {r[0] for r in con.execute("select schema_name from information_schema.schemata").fetchall()}
        path = ",".join(s for s in search_path if s in existing)
        if path:
            con.execute(f"set search_path = '{path}'")
        con.execute("set lock_configuration = true")
        yield con
    finally:
        close_stopping_queries(con)
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
