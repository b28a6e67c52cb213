"""Every file a command writes goes through here, so no command can write over the warehouse.

A path a user names (``--out``, ``--report``, ``--pairs-out``, a site folder, a TREC file) is
checked by :func:`checked_output` before the command does any work, and written by
:func:`atomic_output` (a temporary file in the same folder, then ``os.replace``). The check
compares by identity (``st_dev``, ``st_ino``), not by spelling: a hard link, a symbolic link, a
``..`` or another spelling of the warehouse file, its WAL, its lock or its folder is refused. A
name a config chooses (a generated file's stem) must stay in its folder
(:func:`name_in_folder`). Lock and history files are opened without following links
(:func:`open_private_file`). A refusal is a :class:`OutputRefused`: one line naming the path and
why, exit code 2, nothing written.

Replacing (not rewriting) the target also protects what a checked path could not: a link made
after the check loses its name to the new file; the file it led to is untouched.
"""

from __future__ import annotations

import os
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator

from biaswh.warehouse.errors import UserError
from biaswh.warehouse.settings.home import HOME_VARIABLE, WarehousePaths, warehouse_paths

# DuckDB's companions of a database file: what it writes beside it, with its name as prefix.
COMPANION_SUFFIXES = (".wal", ".wal.checkpoint", ".wal.recovery")
LOCK_FILE_NAME = "warehouse.lock"


class OutputRefused(UserError):
    """A path a command would write is the warehouse, inside it, or leaves its folder."""


def _identity(path: Path, *, follow: bool = True) -> tuple[int, int] | None:
    try:
        found = os.stat(path, follow_symlinks=follow)
    except (OSError, ValueError):
        return None
    return found.st_dev, found.st_ino


def warehouse_files(paths: WarehousePaths | None = None) -> list[Path]:
    """The warehouse's own files: the DuckDB file and its companions, beside its name and beside
    the real file it links to (a symlinked warehouse), and the command lock."""
    paths = paths or warehouse_paths()
    names = [paths.duckdb_file, paths.home / LOCK_FILE_NAME]
    for database in dict.fromkeys([paths.duckdb_file, paths.duckdb_file.resolve()]):
        names += [database.with_name(database.name + suffix) for suffix in COMPANION_SUFFIXES]
    return names


def _warehouse_identities(paths: WarehousePaths) -> set[tuple[int, int]]:
    return {found for found in map(_identity, warehouse_files(paths)) if found}


def is_warehouse_file(path: Path, paths: WarehousePaths | None = None) -> bool:
    """Whether ``path`` (a link followed, or the link itself) is one of :func:`warehouse_files`."""
    paths = paths or warehouse_paths()
    owned = _warehouse_identities(paths)
    return bool({_identity(path), _identity(path, follow=False)} & owned)


def _inside_home(resolved: Path, paths: WarehousePaths) -> bool:
    home = _identity(paths.home)
    if resolved == paths.home or paths.home in resolved.parents:
        return True
    return home is not None and any(_identity(folder) == home for folder in (resolved, *resolved.parents))


def _refused(option: str, given, why: str) -> OutputRefused:
    return OutputRefused(f"{option} {given}: {why}; nothing was written")


def checked_output(
    given: str | os.PathLike, *, option: str, folder: bool = False, creates_folder: bool = False
) -> Path:
    """The resolved path a command will write, refused when it would reach the warehouse.

    ``option`` names the path in the message (``--out``, ``trec export OUT``). A file must not
    be (by identity) one of :func:`warehouse_files` nor lie in the warehouse folder
    (``BIASWH_HOME``); its folder must exist (or, with ``creates_folder``, the nearest existing
    one be writable). A ``folder`` (a site) may be the warehouse's own site folder or outside
    the warehouse folder, never the warehouse folder itself.

    Raises
    ------
    OutputRefused
        Naming ``given`` and why.
    """
    paths = warehouse_paths()
    resolved = Path(given).expanduser().resolve()
    if is_warehouse_file(Path(given).expanduser(), paths) or is_warehouse_file(resolved, paths):
        raise _refused(option, given, f"is the warehouse's own file ({resolved})")
    site = paths.site_dir
    in_site = resolved == site or site in resolved.parents
    if _inside_home(resolved, paths) and not (folder and in_site):
        where = "the warehouse's site folder" if folder else "a folder outside it"
        raise _refused(option, given, f"is inside the warehouse folder {paths.home} ({HOME_VARIABLE}); use {where}")
    if folder and resolved.exists() and not resolved.is_dir():
        raise _refused(option, given, "is a file; name a folder")
    if not folder and resolved.is_dir():
        raise _refused(option, given, "is a folder; name a file")
    if not (folder or creates_folder or resolved.parent.is_dir()):
        raise _refused(option, given, f"no such folder {resolved.parent}")
    existing = next(f for f in (resolved if folder else resolved.parent, *resolved.parents) if f.exists())
    if not existing.is_dir():
        raise _refused(option, given, f"{existing} is a file, not a folder")
    if _read_only(existing):
        raise _refused(option, given, f"the folder {existing} is read-only")
    return resolved


def name_in_folder(folder: Path, name: str, *, what: str) -> Path:
    """``folder / name`` when ``name`` is a plain file name that stays in ``folder``.

    Raises
    ------
    OutputRefused
        When ``name`` is empty, ``.``/``..``, holds a path separator or a NUL, or is absolute.
    """
    plain = isinstance(name, str) and name not in ("", ".", "..") and not any(c in name for c in "/\\\0")
    if not plain:
        raise OutputRefused(f"{what} {name!r} would leave its folder {folder}: use a plain name without / or ..")
    return folder / name


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current


@contextmanager
def replacing(path: Path, *, mode: int | None = None) -> Iterator[Path]:
    """A new temporary file beside ``path`` for a writer that takes a path; it replaces ``path``
    when the block ends, or is removed if the block fails (an error, Ctrl-C).

    The target is replaced, never opened: a link at ``path`` loses its name, what it led to is
    untouched. A file the guard refuses (:func:`is_warehouse_file`) is refused here too.
    ``mode``: the file's permissions (default: as an ordinary open would create it).
    """
    path = Path(path)
    if is_warehouse_file(path):
        raise _refused("writing", path, "is the warehouse's own file")
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
    try:
        os.fchmod(descriptor, 0o666 & ~_umask() if mode is None else mode)
        os.close(descriptor)
        yield Path(temporary)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


@contextmanager
def atomic_output(
    path: Path, mode: str = "w", *, encoding: str | None = "utf-8", newline: str | None = None
) -> Iterator[IO]:
    """A handle on a temporary file beside ``path`` that replaces ``path`` when the block ends
    (:func:`replacing`): the file appears whole or not at all."""
    text_options = {} if "b" in mode else {"encoding": encoding, "newline": newline}
    with replacing(path) as temporary, open(temporary, mode, **text_options) as handle:
        yield handle


def write_text_atomically(path: Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` through :func:`atomic_output`; return ``path``."""
    with atomic_output(path) as handle:
        handle.write(text)
    return path


def refuse_link(path: Path, *, what: str) -> None:
    """Refuse a file that is a symbolic link, has other names (hard links), or is a warehouse file."""
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(found.st_mode):
        raise OutputRefused(f"{what} {path} is a symbolic link: it is written only as a plain file; remove the link")
    if not stat.S_ISREG(found.st_mode) or found.st_nlink > 1 or is_warehouse_file(path):
        raise OutputRefused(f"{what} {path} is not a plain file of its own (a folder or a hard link); remove it")


def open_private_file(path: Path, *, what: str, mode: int = 0o644) -> IO:
    """Open (creating) ``path`` for reading and writing without following a symbolic link.

    For a lock file: it is truncated and rewritten in place (its lock is on the open file), so it
    must not lead anywhere else. ``O_NOFOLLOW`` refuses a link at ``path``; a file with other
    names (a hard link to the warehouse, say) is refused by its link count.

    Raises
    ------
    OutputRefused
        When ``path`` is a link, a hard-linked file, or not a regular file.
    """
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(path, flags, mode)
    except OSError as exc:
        if Path(path).is_symlink():
            refuse_link(path, what=what)
        raise OutputRefused(f"{what} {path}: cannot open it ({exc.strerror or exc})") from None
    found = os.fstat(descriptor)
    if not stat.S_ISREG(found.st_mode) or found.st_nlink > 1:
        os.close(descriptor)
        raise OutputRefused(f"{what} {path} is not a plain file of its own (a hard link?); remove it")
    return os.fdopen(descriptor, "r+", encoding="utf-8")


def _read_only(path: Path) -> bool:
    found = os.stat(path)
    return not os.access(path, os.W_OK) or not found.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)


def refuse_read_only_warehouse(paths: WarehousePaths | None = None) -> None:
    """End a writing command before any work when the warehouse file or its folder is read-only.

    Mode bits count even for a user the system lets write anyway (root): a warehouse made
    read-only was made so on purpose. Reading commands go through the sandbox and still work.

    Raises
    ------
    OutputRefused
        Naming the read-only file or folder.
    """
    paths = paths or warehouse_paths()
    database = paths.duckdb_file
    for path, what in ((paths.home, "folder"), (database.resolve(), "file")):
        if path.exists() and _read_only(path):
            raise OutputRefused(
                f"the warehouse {what} {path} is read-only: writing commands need it writable"
                " (reading ones, such as biaswh sql, work as it is)"
            )
