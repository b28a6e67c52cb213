"""dbt's partial-parse state shared by every warehouse on a machine.

dbt keeps the parsed project in ``partial_parse.msgpack`` beside each warehouse's compiled SQL
and re-parses only the files that changed since. A fresh warehouse has none, so its first
build paid a full parse (16 s against 1.6 s measured on a 2-core machine). The parsed project
does not depend on the warehouse: the profile our invoker renders is the same for every
warehouse (:data:`DUCKDB_FILE_VARIABLE`), so a state parsed for one serves all. Each parse's
state is copied to a user-level folder (``~/.cache/biaswh/dbt``, or ``BIASWH_DBT_CACHE``) and
seeds a warehouse that has none; dbt still checks every file's checksum against it, so a
changed project is re-parsed where it changed, never used stale.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Sequence

from warehouse.errors import UserError
from warehouse.settings import DBT_PROJECT_DIR, REPOSITORY_ROOT

CACHE_VARIABLE = "BIASWH_DBT_CACHE"
# The DuckDB file as dbt's profile names it during our calls: a bare file name, opened from
# the warehouse folder (dbt's partial-parse state hashes the profile's rendered values, so an
# absolute path would make every warehouse look like a changed profile).
DUCKDB_FILE_VARIABLE = "BIASWH_DBT_DUCKDB_FILE"
STATE_FILE = "partial_parse.msgpack"


def parse_cache_dir() -> Path:
    """The machine's dbt parse-state folder: ``BIASWH_DBT_CACHE``, else ``$XDG_CACHE_HOME``
    (default ``~/.cache``) ``/biaswh/dbt``; never inside the repository."""
    setting = os.environ.get(CACHE_VARIABLE)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    folder = (Path(setting).expanduser() if setting else Path(base) / "biaswh" / "dbt").resolve()
    if folder == REPOSITORY_ROOT or REPOSITORY_ROOT in folder.parents:
        raise UserError(f"{CACHE_VARIABLE}={folder} is inside the repository; choose a folder outside it")
    return folder


def shared_state_file(parse_args: Sequence[str]) -> Path:
    """The shared state for this checkout's project, this dbt version and these parse options."""
    from dbt.version import __version__

    key = "\0".join([str(DBT_PROJECT_DIR), __version__, *parse_args])
    return parse_cache_dir() / f"partial_parse-{hashlib.sha256(key.encode()).hexdigest()[:16]}.msgpack"


def seed_partial_parse(target_path: Path, parse_args: Sequence[str]) -> None:
    """Give a warehouse without parse state the machine's shared one (when there is one)."""
    own = target_path / STATE_FILE
    shared = shared_state_file(parse_args)
    if own.exists() or not shared.exists():
        return
    target_path.mkdir(parents=True, exist_ok=True)
    _copy_atomically(shared, own)


def share_partial_parse(target_path: Path, parse_args: Sequence[str], since_ns: int) -> None:
    """Offer the machine the parse state dbt wrote in ``target_path`` after ``since_ns`` (a parse
    that found nothing changed writes none, and nothing is copied)."""
    own = target_path / STATE_FILE
    try:
        if own.stat().st_mtime_ns < since_ns:
            return
        shared = shared_state_file(parse_args)
        shared.parent.mkdir(parents=True, exist_ok=True)
        _copy_atomically(own, shared)
    except OSError:
        return  # a cache that cannot be written costs the next fresh warehouse a full parse, nothing else


def _copy_atomically(source: Path, destination: Path) -> None:
    """Copy ``source`` so that a reader of ``destination`` sees the old file or the whole new one."""
    handle, temporary = tempfile.mkstemp(dir=destination.parent, prefix=f".{destination.name}.")
    os.close(handle)
    try:
        shutil.copyfile(source, temporary)
        os.replace(temporary, destination)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
