"""The Python API for notebooks: ``import biaswh``, then ``wh = biaswh.open()``.

A :class:`Warehouse` names one warehouse folder and answers in polars DataFrames (pandas
through ``.to_pandas()``). It holds no DuckDB connection between calls: each call opens the
file, answers and closes it. DuckDB lets one process write only while no other process has the
file open, so an idle notebook holding a read-only connection would make every ``biaswh run``
in a terminal, and this object's own :meth:`Warehouse.run`, fail as busy. Every read goes
through the sandbox of ``biaswh sql`` (:func:`warehouse.connection.open_sandbox`): nothing
this object reads with can write, reach other files or change settings.

Every argument is checked as the CLI checks the same option (:mod:`biaswh.api_inputs`); a bad
one raises :class:`biaswh.BadInput`, a ``ValueError`` naming the parameter.

Studies run through the same pipeline and command lock as ``biaswh run``
(:func:`biaswh.pipeline.run_study`). Heavy libraries (polars, pyarrow, altair, the
pipeline's models) are imported on first use, so ``import biaswh`` stays fast.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Literal

from biaswh import api_inputs as check
from warehouse.config_schema import POSITIVE_INTEGER
from warehouse.errors import UserError
from warehouse.settings import HOME_VARIABLE, warehouse_paths

if TYPE_CHECKING:  # annotations only: importing these costs ~0.5 s
    import altair as alt
    import duckdb
    import polars as pl

    from biaswh.findings_view import Findings

_RUNS_FROM_RAW = """select r.run_id, r.kind as run_kind, r.name as run_name, r.status as run_status,
    r.started_at, r.finished_at, r.message, r.parameters from raw.runs r order by r.started_at desc"""
_STUDIES = """select run_name as study, count(*) as n_runs,
    count(*) filter (where run_status = 'succeeded') as n_succeeded,
    arg_max(run_id, started_at) as latest_run_id, arg_max(run_status, started_at) as latest_status,
    max(started_at) as latest_started_at,
    arg_max(run_id, started_at) filter (where run_status = 'succeeded') as latest_succeeded_run_id
    from runs where run_kind = 'study' group by run_name order by latest_started_at desc"""


class Warehouse:
    """One warehouse folder, read through the ``biaswh sql`` sandbox; see :func:`open`.

    Usable as a context manager; after :meth:`close` every call is refused.
    """

    def __init__(self, home: Path, *, read_only: bool = True) -> None:
        self.home = home
        self.read_only = read_only
        self._closed = False

    def __repr__(self) -> str:
        mode = "read-only" if self.read_only else "read-write"
        return f"<biaswh.Warehouse {self.home} ({mode}{', closed' if self._closed else ''})>"

    def __enter__(self) -> Warehouse:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def close(self) -> None:
        """Refuse every later call (no connection stays open between calls, so none is left to close)."""
        self._closed = True

    @property
    def site(self) -> Path:
        """The dashboard site's folder (written by each study run)."""
        return self.home / "site"

    @contextmanager
    def _at_home(self) -> Iterator[None]:
        """Point ``BIASWH_HOME`` at this warehouse while the block runs.

        The kernel, the pipeline and dbt all read the one setting (not thread-safe: one call at a
        time, as in a notebook).

        Yields
        ------
        None
            While ``BIASWH_HOME`` names this warehouse.

        Raises
        ------
        UserError
            When this object was closed.
        """
        if self._closed:
            raise UserError(f"this Warehouse ({self.home}) is closed: biaswh.open() another one")
        before = os.environ.get(HOME_VARIABLE)
        os.environ[HOME_VARIABLE] = str(self.home)
        try:
            yield
        finally:
            if before is None:
                os.environ.pop(HOME_VARIABLE, None)
            else:
                os.environ[HOME_VARIABLE] = before

    @contextmanager
    def _sandbox(self) -> Iterator[duckdb.DuckDBPyConnection]:
        from biaswh.adhoc_sql import SEARCH_PATH
        from warehouse.sandbox import open_sandbox

        with self._at_home(), open_sandbox(SEARCH_PATH) as con:
            yield con

    def sql(self, query: str) -> pl.DataFrame:
        """Run one SQL statement in the ``biaswh sql`` sandbox and return its rows.

        Unqualified names resolve through the layers (``marts`` first).

        Parameters
        ----------
        query : str
            One SQL statement.

        Returns
        -------
        polars.DataFrame
            Its rows; an empty frame for a statement without rows.

        Raises
        ------
        BadInput
            When an argument is of the wrong type or out of range (a ``ValueError`` and a ``UserError``).
        UserError
            On any SQL error, and on anything the sandbox refuses (writes, files, settings).
        """
        import polars as pl

        from biaswh.adhoc_sql import run_query

        check.text("sql", "query", query)
        with self._sandbox() as con:
            table = run_query(con, query)
        return pl.DataFrame() if table is None else pl.from_arrow(table)

    def _runs_query(self) -> str:
        from dashboards.common.queries import relation_exists

        with self._sandbox() as con:
            built = relation_exists(con, "marts", "dim_runs")
        return "select * from marts.dim_runs order by started_at desc" if built else _RUNS_FROM_RAW

    def runs(self) -> pl.DataFrame:
        """Every run (ingests, studies, analyses), newest first.

        Returns
        -------
        polars.DataFrame
            ``marts.dim_runs`` with its provenance columns, or ``raw.runs`` in a warehouse that
            was never built.
        """
        return self.sql(self._runs_query())

    def studies(self) -> pl.DataFrame:
        """One row per study name that has run, latest first.

        Returns
        -------
        polars.DataFrame
            Per study: its run counts, its latest run and its latest succeeded run.
        """
        return self.sql(f"with runs as ({self._runs_query()}) {_STUDIES}")

    def latest_run(self, study: str) -> str | None:
        """The id of the latest succeeded run of a study.

        Parameters
        ----------
        study : str
            The study's name (its ``[study] name``).

        Returns
        -------
        str or None
            The run id; None when the study has none, or nothing has run in this folder yet.

        Raises
        ------
        BadInput
            When ``study`` is not a non-empty string (a ``ValueError`` and a ``UserError``).
        """
        check.text("latest_run", "study", study)
        if not (self.home / "warehouse.duckdb").exists():
            return None
        with self._sandbox() as con:
            row = con.execute(
                "select run_id from raw.runs where kind = 'study' and name = ? and status = 'succeeded'"
                " order by started_at desc, run_id limit 1",  # the site's rule: dashboards/common/runs.py
                [study],
            ).fetchone()
        return None if row is None else row[0]

    def findings(self, study: str | None = None) -> Findings:
        """The site index's findings: one per study, its latest succeeded run's verdict.

        Parameters
        ----------
        study : str, optional
            Keep the finding of this study name (e.g. ``"demo"``) or page (``"dialect"``).

        Returns
        -------
        Findings
            A frame (``.frame``, or any DataFrame method on it) that renders as the site's cards
            in Jupyter.

        Raises
        ------
        BadInput
            When an argument is of the wrong type or out of range (a ``ValueError`` and a ``UserError``).
        UserError
            When ``study`` names no study or page with a finding.
        """
        from biaswh.findings_view import read_findings

        check.text("findings", "study", study, optional=True)
        with self._sandbox() as con:
            return read_findings(con, study=study)

    def charts(self, page: str, *, run_id: str | None = None) -> dict[str, alt.TopLevelMixin]:
        """The Altair charts of one dashboard page, by title.

        Parameters
        ----------
        page : str
            The page: ``"dialect"``, ``"weat"``, ...
        run_id : str, optional
            The run a per-run page draws (a unique prefix is enough); default: the run the
            site's page shows.

        Returns
        -------
        dict of str to altair.TopLevelMixin
            The charts in page order; titles repeated on a page (one chart per pair set, say) get
            `` (2)``, `` (3)``, ...

        Raises
        ------
        BadInput
            When an argument is of the wrong type or out of range (a ``ValueError`` and a ``UserError``).
        UserError
            When no page has that name, or ``run_id`` names none of its runs.
        """
        from biaswh.findings_view import page_charts

        check.text("charts", "page", page)
        check.text("charts", "run_id", run_id, optional=True)
        with self._sandbox() as con:
            return page_charts(con, page, run_id=run_id)

    def run(
        self,
        study_path: str | os.PathLike,
        *,
        limit: int | None = None,
        compute: Literal["local", "ray"] | None = None,
        ray_address: str | None = None,
        corpus_shards: int | None = None,
    ) -> str:
        """Run a study end to end, as ``biaswh run`` does.

        The same pipeline and command lock as the CLI; dashboards are rebuilt. Querying this
        object afterwards sees the new run (no connection was held across it).

        Parameters
        ----------
        study_path : str or os.PathLike
            The study config (TOML).
        limit : int, optional
            Only the first N pairs or queries: a quick dry run.
        compute : {"local", "ray"}, optional
            Where the compute jobs run (``biaswh run --compute``); overrides ``[compute]``.
        ray_address : str, optional
            The Ray cluster to join (``--ray-address``); implies ``compute="ray"``.
        corpus_shards : int, optional
            With Ray, retrieve over this many corpus shards (``--corpus-shards``).

        Returns
        -------
        str
            The new study run's id.

        Raises
        ------
        BadInput
            When an argument is of the wrong type or out of range (a ``ValueError`` and a ``UserError``).
        UserError
            When this object was opened read-only, or the study's config is wrong (a
            ``WarehouseBusyError``, one kind of it, when another process holds the warehouse).
        RuntimeError
            When the run did not leave exactly one new study run.
        """
        check.path("run", "study_path", study_path)
        check.number("run", "limit", limit, POSITIVE_INTEGER)  # as `biaswh run --limit`
        check.choice("run", "compute", compute, ("local", "ray"))
        check.ray_address("run", ray_address)
        check.number("run", "corpus_shards", corpus_shards, POSITIVE_INTEGER)
        if self.read_only:
            raise UserError(
                f"this Warehouse ({self.home}) was opened read-only: biaswh.open(read_only=False) runs studies"
            )
        from biaswh.pipeline import run_study as pipeline_run

        with self._at_home():
            before = self._study_run_ids()
            pipeline_run(
                str(study_path), limit=limit, compute=compute, ray_address=ray_address, corpus_shards=corpus_shards
            )
            new = self._study_run_ids() - before
        if len(new) != 1:
            raise RuntimeError(f"expected one new study run in {self.home}, found {len(new)}")
        return new.pop()

    def _study_run_ids(self) -> set[str]:
        if not (self.home / "warehouse.duckdb").exists():
            return set()
        with self._sandbox() as con:
            return {r[0] for r in con.execute("select run_id from raw.runs where kind = 'study'").fetchall()}


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
