"""The Python API for notebooks: ``import biaswh``, then ``wh = biaswh.open()``.

A :class:`Warehouse` names one warehouse folder and answers in polars DataFrames (pandas
through ``.to_pandas()``). It holds no DuckDB connection between calls: each call opens the
file, answers and closes it. DuckDB lets one process write only while no other process has the
file open, so an idle notebook holding a read-only connection would make every ``biaswh run``
in a terminal, and this object's own :meth:`Warehouse.run`, fail as busy. Every read goes
through the sandbox of ``biaswh sql`` (:func:`biaswh.warehouse.database.connection.open_sandbox`): nothing
this object reads with can write, reach other files or change settings.

Every argument is checked as the CLI checks the same option (:mod:`biaswh.api_inputs`); a bad
one raises :class:`biaswh.BadInput`, a ``ValueError`` naming the parameter.

Studies run through the same pipeline and command lock as ``biaswh run``
(:func:`biaswh.pipeline.run_study`). Heavy libraries (polars, pyarrow, altair, the
pipeline's models) are imported on first use, so ``import biaswh`` stays fast.
"""

from __future__ import annotations

import os
from pathlib import Path

from biaswh import api_inputs as check
from biaswh.api_warehouse import Warehouse
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.settings.home import warehouse_paths

__all__ = ["Warehouse", "open", "run_study"]


def _resolve_home(path: str | os.PathLike | None) -> Path:
    check.path("open", "path", path, optional=True)
    if path is None:
        return warehouse_paths().home
    named = Path(os.path.abspath(Path(path).expanduser()))  # a linked warehouse file names the link's folder
    if named.is_file() and named.suffix == ".duckdb":
        named = named.parent  # the DuckDB file itself names its folder
    home = named.resolve()
    if home.exists() and not home.is_dir():
        raise UserError(f"biaswh.open({str(path)!r}): not a folder; pass the folder that holds warehouse.duckdb")
    return home


def open(path: str | os.PathLike | None = None, *, read_only: bool = True) -> Warehouse:  # noqa: A001
    """Open a warehouse folder.

    Parameters
    ----------
    path : str or os.PathLike, optional
        The warehouse's folder, or its ``warehouse.duckdb`` (default: ``BIASWH_HOME``, else
        ``.warehouse/`` in the checkout).
    read_only : bool, default True
        True never writes: :meth:`Warehouse.run` is refused and the warehouse must exist.
        False allows running studies, into a new folder too.

    Returns
    -------
    Warehouse
        The warehouse; it holds no connection between calls.

    Raises
    ------
    BadInput
        When an argument is of the wrong type or out of range (a ``ValueError`` and a ``UserError``).
    UserError
        When ``path`` is not a folder, or (read-only) holds no warehouse.
    """
    check.flag("open", "read_only", read_only)
    home = _resolve_home(path)
    if read_only and not (home / "warehouse.duckdb").exists():
        raise UserError(f"no warehouse at {home / 'warehouse.duckdb'}: run a study first (biaswh.run_study)")
    return Warehouse(home, read_only=read_only)


def run_study(study_path: str | os.PathLike, *, limit: int | None = None, home: str | os.PathLike | None = None) -> str:
    """Run a study into a warehouse folder, as ``biaswh run`` does (see :meth:`Warehouse.run`).

    Parameters
    ----------
    study_path : str or os.PathLike
        The study config (TOML).
    limit : int, optional
        Only the first N pairs or queries: a quick dry run.
    home : str or os.PathLike, optional
        The warehouse folder (default: ``BIASWH_HOME``); created when missing.

    Returns
    -------
    str
        The new study run's id.
    """
    check.path("run_study", "home", home, optional=True)
    return open(home, read_only=False).run(study_path, limit=limit)
