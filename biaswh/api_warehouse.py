"""The API's :class:`Warehouse`: one warehouse folder, answering in polars DataFrames.

It holds no DuckDB connection between calls (see :mod:`biaswh.api` for why); every read goes
through the sandbox of ``biaswh sql``, and :meth:`Warehouse.run` through the pipeline and command
lock of ``biaswh run``. :func:`biaswh.open` makes one.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Literal

from biaswh import api_inputs as check
from biaswh.run_listing import runs_query, studies_query
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.settings.config_schema import POSITIVE_INTEGER
from biaswh.warehouse.settings.home import home_set_to

if TYPE_CHECKING:  # annotations only: importing these costs ~0.5 s
    import altair as alt
    import duckdb
    import polars as pl

    from biaswh.findings_view import Findings


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
        """Point ``BIASWH_HOME`` at this warehouse while the block runs; UserError once closed.

        The kernel, the pipeline and dbt all read the one setting (not thread-safe: one call at a
        time, as in a notebook).
        """
        if self._closed:
            raise UserError(f"this Warehouse ({self.home}) is closed: biaswh.open() another one")
        with home_set_to(self.home):
            yield

    @contextmanager
    def _sandbox(self) -> Iterator[duckdb.DuckDBPyConnection]:
        from biaswh.adhoc_sql import SEARCH_PATH
        from biaswh.warehouse.database.sandbox import open_sandbox

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

    def _query_of(self, build_query) -> str:
        with self._sandbox() as con:
            return build_query(con)

    def runs(self) -> pl.DataFrame:
        """Every run (ingests, studies, analyses), newest first.

        Returns
        -------
        polars.DataFrame
            ``marts.dim_runs`` with its provenance columns, or ``raw.runs`` in a warehouse that
            was never built.
        """
        return self.sql(self._query_of(runs_query))

    def studies(self) -> pl.DataFrame:
        """One row per study name that has run, latest first.

        Returns
        -------
        polars.DataFrame
            Per study: its run counts, its latest run and its latest succeeded run.
        """
        return self.sql(self._query_of(studies_query))

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
        dashboards: bool = True,
    ) -> str:
        """Run a study end to end, as ``biaswh run`` does.

        The same pipeline and command lock as the CLI; dashboards are rebuilt (unless
        ``dashboards=False``). Querying this object afterwards sees the new run (no connection
        was held across it).

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
        dashboards : bool, default True
            False: the site is not redrawn (``biaswh run --no-site``; ``biaswh dashboards`` draws it).

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
        check.flag("run", "dashboards", dashboards)
        if self.read_only:
            raise UserError(
                f"this Warehouse ({self.home}) was opened read-only: biaswh.open(read_only=False) runs studies"
            )
        from biaswh.pipeline import run_study as pipeline_run

        with self._at_home():
            before = self._study_run_ids()
            pipeline_run(
                str(study_path),
                limit=limit,
                compute=compute,
                ray_address=ray_address,
                corpus_shards=corpus_shards,
                build_site=dashboards,
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
