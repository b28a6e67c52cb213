"""Where the warehouse lives.

One environment variable, ``BIASWH_HOME``, names a folder that holds everything the
warehouse writes: the DuckDB file, the LanceDB folder and the built dashboard site.
dbt's ``profiles.yml`` reads the same variable, so Python and SQL never disagree.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from biaswh.warehouse.errors import UserError

HOME_VARIABLE = "BIASWH_HOME"
# DuckDB's memory limit for every connection, ours and dbt's (profiles.yml reads the same
# variable): beyond it, large joins, aggregates and sorts spill to the warehouse folder
# instead of growing (DuckDB's own default is 80% of the machine's memory).
MEMORY_LIMIT_VARIABLE = "BIASWH_MEMORY_LIMIT"
DEFAULT_MEMORY_LIMIT = "2GB"
# The folder holding the layers (warehouse/, stats/, ...): a checkout's root, or biaswh/ once installed.
LAYERS_ROOT = Path(__file__).resolve().parents[2]
REPOSITORY_ROOT = LAYERS_ROOT if (LAYERS_ROOT / "dbt_project").is_dir() else LAYERS_ROOT.parent
DEFAULT_HOME = REPOSITORY_ROOT / ".warehouse"
DBT_PROJECT_DIR = REPOSITORY_ROOT / "dbt_project"


@contextlib.contextmanager
def home_set_to(home: str | os.PathLike) -> Iterator[None]:
    """``BIASWH_HOME`` set to ``home`` while the block runs, then as it was (unset when it was).

    The kernel, the pipeline and dbt all read the one setting: not thread-safe, one call at a time.
    """
    before = os.environ.get(HOME_VARIABLE)
    os.environ[HOME_VARIABLE] = str(Path(home).expanduser())
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(HOME_VARIABLE, None)
        else:
            os.environ[HOME_VARIABLE] = before


@dataclass(frozen=True)
class WarehousePaths:
    """Every location derived from the one ``BIASWH_HOME`` setting."""

    home: Path

    @property
    def duckdb_file(self) -> Path:
        return self.home / "warehouse.duckdb"

    @property
    def lancedb_dir(self) -> Path:
        return self.home / "lancedb"

    @property
    def site_dir(self) -> Path:
        return self.home / "site"


def warehouse_paths() -> WarehousePaths:
    """Resolve the warehouse folder from ``BIASWH_HOME`` (default: ``.warehouse/`` in the checkout).

    Raises
    ------
    UserError
        When that path exists and is not a folder.
    """
    raw = os.environ.get(HOME_VARIABLE)
    home = (Path(raw).expanduser() if raw else DEFAULT_HOME).resolve()
    if home.exists() and not home.is_dir():
        raise UserError(
            f"{HOME_VARIABLE} names {home}, which is a file, not a folder: set {HOME_VARIABLE}"
            " to the folder that holds (or will hold) warehouse.duckdb"
        )
    paths = WarehousePaths(home=home)
    if paths.duckdb_file.is_symlink() and paths.duckdb_file.resolve().name != paths.duckdb_file.name:
        # DuckDB opens the real file and names the database after it; the views dbt made name "warehouse".
        raise UserError(
            f"{paths.duckdb_file} links to {paths.duckdb_file.resolve()}: a linked warehouse file must be"
            f" named {paths.duckdb_file.name} too (DuckDB names the database after the real file)"
        )
    return paths


def duckdb_memory_limit() -> str:
    """DuckDB's memory limit from ``BIASWH_MEMORY_LIMIT`` (e.g. ``4GB``; default 2GB)."""
    return os.environ.get(MEMORY_LIMIT_VARIABLE) or DEFAULT_MEMORY_LIMIT


def user_cache_dir(variable: str, name: str) -> Path:
    """A machine-level cache folder: ``$variable`` when set, else ``$XDG_CACHE_HOME`` (default
    ``~/.cache``) ``/biaswh/<name>``; never inside the repository (caches are not source)."""
    setting = os.environ.get(variable)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    folder = (Path(setting).expanduser() if setting else Path(base) / "biaswh" / name).resolve()
    if folder == REPOSITORY_ROOT or REPOSITORY_ROOT in folder.parents:
        raise UserError(f"{variable}={folder} is inside the repository; choose a folder outside it")
    return folder
