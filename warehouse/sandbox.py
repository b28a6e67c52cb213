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

On top of that, statements whose only use is to write or reach files (``COPY``, ``EXPORT``,
``ATTACH``, ``DETACH``) are refused before they run, read by DuckDB's own parser: ``biaswh sql
--out`` writes results, and :func:`output_path` keeps those outside ``BIASWH_HOME``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence

import duckdb

from warehouse.connection import close_stopping_queries, open_file
from warehouse.errors import UserError
from warehouse.processes import process_alive
from warehouse.settings import HOME_VARIABLE, WarehousePaths, duckdb_memory_limit, warehouse_paths

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
}


def refuse_file_statements(con: duckdb.DuckDBPyConnection, query: str) -> None:
    """Refuse ``query`` when one of its statements is a COPY, EXPORT, ATTACH or DETACH.

    DuckDB's parser classifies the statements, so comments, case and quoting cannot hide one.
    A query that does not parse is left to ``execute``, which reports the parser's error.
    """
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


def _clear_stale_scratch(home: Path) -> None:
    """Remove private folders left by sandbox processes that were killed before cleaning up."""
    for folder in home.glob(f"{SCRATCH_PREFIX}*"):
        pid = folder.name[len(SCRATCH_PREFIX) :].split("-")[0]
        if pid.isdigit() and int(pid) != os.getpid() and not process_alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)


def _linked_alias(paths: WarehousePaths) -> tuple[Path, Path]:
    """A private folder with hard links to the warehouse file (and its WAL); returns (folder, alias)."""
    _clear_stale_scratch(paths.home)
    scratch = Path(tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-", dir=paths.home))
    alias = scratch / paths.duckdb_file.name
    try:
        os.link(paths.duckdb_file, alias)
        wal = paths.duckdb_file.with_name(paths.duckdb_file.name + ".wal")
        try:
            # A WAL left by a crashed writer holds committed changes a read-only open replays.
            os.link(wal, alias.with_name(alias.name + ".wal"))
        except FileNotFoundError:
            pass
    except OSError:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    return scratch, alias


def _open_alias(paths: WarehousePaths, config: dict) -> tuple[duckdb.DuckDBPyConnection, Path | None]:
    """The read-only connection through a hard link, and its private folder.

    Where no link can be made (a file system without hard links, a warehouse folder this user
    cannot write), the real path is opened only if this user cannot write the file either:
    then DuckDB's list is moot, the operating system refuses the write.
    """
    try:
        scratch, alias = _linked_alias(paths)
    except OSError as exc:
        wal = paths.duckdb_file.with_name(paths.duckdb_file.name + ".wal")
        if os.access(paths.duckdb_file, os.W_OK) or (wal.exists() and os.access(wal, os.W_OK)):
            raise UserError(
                f"sql: cannot open {paths.duckdb_file} safely: making a hard link in {paths.home} failed"
                f" ({exc.strerror or exc}); put {HOME_VARIABLE} on a file system with hard links"
            ) from None
        return open_file(paths.duckdb_file, read_only=True, config=config), None
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


@contextmanager
def open_sandbox(search_path: Sequence[str] = ()) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection for ad hoc SQL that cannot touch anything but the warehouse's tables.

    DuckDB itself refuses, on this connection, writes to the warehouse, any file access
    (``COPY ... TO``, ``EXPORT DATABASE``, ``ATTACH``, ``read_blob``, ``read_csv``) including
    the warehouse file, its WAL and everything under ``BIASWH_HOME``, installing or loading
    extensions, and changing settings (``lock_configuration``). ``search_path`` lists the
    schemas unqualified names resolve through; those that do not exist are skipped.
    """
    paths = warehouse_paths()
    if not paths.duckdb_file.exists():
        raise UserError(f"no warehouse at {paths.duckdb_file}: run an ingest or `make demo` first")
    con, scratch = _open_alias(paths, {**SANDBOX_CONFIG, "memory_limit": duckdb_memory_limit()})
    try:
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


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def output_path(out: str) -> Path:
    """The file ``--out`` names, refused when it is (or would be) inside ``BIASWH_HOME``.

    The path is resolved first (``~``, ``..``, symbolic links, relative to the current folder);
    each existing folder on the way is also compared with ``BIASWH_HOME`` by identity, which
    catches other spellings of it (case on a case-insensitive disk, a bind mount), and an
    existing file by identity with the warehouse file and its WAL (a hard link elsewhere).

    Raises
    ------
    UserError
        When the path is inside the warehouse folder, is a folder, or its folder does not exist.
    """
    paths = warehouse_paths()
    resolved = Path(out).expanduser().resolve()
    wal = paths.duckdb_file.with_name(paths.duckdb_file.name + ".wal")
    inside = resolved == paths.home or paths.home in resolved.parents
    inside = inside or any(_same_file(folder, paths.home) for folder in (resolved, *resolved.parents))
    if inside or _same_file(resolved, paths.duckdb_file) or _same_file(resolved, wal):
        raise UserError(
            f"--out {out}: {resolved} is inside the warehouse folder {paths.home} ({HOME_VARIABLE});"
            " write results elsewhere"
        )
    if resolved.is_dir():
        raise UserError(f"--out {out}: is a folder; name a file")
    if not resolved.parent.is_dir():
        raise UserError(f"--out {out}: no such folder {resolved.parent}")
    return resolved
