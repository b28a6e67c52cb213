"""dbt's parsed project shared by every warehouse on a machine, and by every process.

dbt keeps the parsed project in ``partial_parse.msgpack`` beside each warehouse's compiled SQL
and re-parses only the files that changed since. A fresh warehouse has none, so its first
build paid a full parse (16 s against 1.6 s measured on a 2-core machine). The parsed project
does not depend on the warehouse: the profile our invoker renders is the same for every
warehouse (:data:`DUCKDB_FILE_VARIABLE`), so a state parsed for one serves all. Each parse's
state is copied to a user-level folder (``~/.cache/biaswh/dbt``, or ``BIASWH_DBT_CACHE``) and
seeds a warehouse that has none; dbt still checks every file's checksum against it, so a
changed project is re-parsed where it changed, never used stale.

A new process need not parse at all when nothing changed: the parsed project itself is kept
there too (:func:`store_parsed`, a pickle), keyed by everything it was parsed from (the
project's files, ``profiles.yml``, the parse options, dbt's and Python's versions) and loaded
in 0.05 s instead of a partial parse's 1.6-2.9 s (measured here). The folder is the user's own
(files readable by the user only); a file that does not load is ignored and re-made.
"""

from __future__ import annotations

import copyreg
import hashlib
import os
import pickle
import shutil
import sys
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Sequence

from biaswh.warehouse.dbt_build.project_dir import dbt_project_dir
from biaswh.warehouse.settings.home import DBT_PROJECT_DIR, user_cache_dir

CACHE_VARIABLE = "BIASWH_DBT_CACHE"
# The DuckDB file as dbt's profile names it during our calls: a bare file name, opened from
# the warehouse folder (dbt's partial-parse state hashes the profile's rendered values, so an
# absolute path would make every warehouse look like a changed profile).
DUCKDB_FILE_VARIABLE = "BIASWH_DBT_DUCKDB_FILE"
# DuckDB's home_directory (what "~" in a view's path means) as the profile names it during our
# calls: "." (the warehouse folder, dbt's working directory), for the same reason.
HOME_DIRECTORY_VARIABLE = "BIASWH_DBT_HOME_DIRECTORY"
STATE_FILE = "partial_parse.msgpack"


def parse_cache_dir() -> Path:
    """The machine's dbt parse-state folder: ``BIASWH_DBT_CACHE``, else ``~/.cache/biaswh/dbt``."""
    return user_cache_dir(CACHE_VARIABLE, "dbt")


def shared_state_file(parse_args: Sequence[str]) -> Path:
    """The shared state for this checkout's project, this dbt version and these parse options."""
    from dbt.version import __version__

    key = "\0".join([str(dbt_project_dir()), __version__, *parse_args])
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


def _parsed_file_and_key(digest: str, parse_args: Sequence[str]) -> tuple[Path, str]:
    """The pickle for this checkout and these parse options, and the key its content must carry."""
    slot = hashlib.sha256("\0".join([str(dbt_project_dir()), *parse_args]).encode()).hexdigest()[:16]
    profile = (DBT_PROJECT_DIR / "profiles.yml").read_bytes()
    key = hashlib.sha256(
        "\0".join([digest, *dbt_versions(), sys.version, *parse_args]).encode() + b"\0" + profile
    ).hexdigest()
    return parse_cache_dir() / f"manifest-{slot}.pickle", key


def dbt_versions() -> list[str]:
    """dbt's and its adapters' versions (their macros are part of the parsed project)."""
    found = []
    for package in ("dbt-core", "dbt-adapters", "dbt-duckdb", "dbt-spark"):
        try:
            found.append(f"{package}=={metadata.version(package)}")
        except metadata.PackageNotFoundError:
            found.append(f"{package} absent")
    return found


def _manifest_state(manifest):
    """Pickle a dbt ``Manifest`` by its attributes (its own ``__reduce_ex__`` lists fewer
    arguments than its constructor takes in dbt 1.11, so its fields would shift); not its lock."""
    state = {name: value for name, value in manifest.__dict__.items() if name != "_lock"}
    return _manifest_from_state, (type(manifest), state)


def _manifest_from_state(cls, state: dict):
    from dbt.mp_context import get_mp_context

    manifest = cls.__new__(cls)
    manifest.__dict__.update(state)
    manifest._lock = get_mp_context().Lock()
    return manifest


def store_parsed(manifest, digest: str, parse_args: Sequence[str]) -> None:
    """Keep the parsed project ``manifest`` of the project state ``digest`` for later processes."""
    from dbt.contracts.graph.manifest import Manifest

    try:
        path, key = _parsed_file_and_key(digest, parse_args)
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        try:
            with os.fdopen(handle, "wb") as out:
                pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
                pickler.dispatch_table = {**copyreg.dispatch_table, Manifest: _manifest_state}
                pickler.dump((key, manifest))
            os.replace(temporary, path)
        finally:
            if os.path.exists(temporary):
                os.unlink(temporary)
    except (OSError, pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return  # not kept: the next process parses, nothing else


def load_parsed(digest: str, parse_args: Sequence[str]):
    """The parsed project kept for exactly this project state and these options, else None."""
    path, key = _parsed_file_and_key(digest, parse_args)
    try:
        with open(path, "rb") as handle:
            stored_key, manifest = pickle.load(handle)
    except FileNotFoundError:
        return None
    except Exception:  # noqa: BLE001 - a torn or foreign file: parse instead (and it is re-made)
        return None
    return manifest if stored_key == key else None


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
