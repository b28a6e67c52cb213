"""Which study runs the site shows: one rule for every card, page, run selector and the runs page.

A study type keeps its results in one table, named once by a :class:`RunsIn` in the family's
``card*.py`` and given to both its ``@card`` and its ``@register_page``. The runs shown are the
**succeeded** study runs holding rows in that table, grouped per study (its config's name), newest
first, ties by run id. A failed or interrupted run keeps its rows for the record but is never a
page, a card or a selector entry; the runs page lists it, without a page link.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import duckdb

from dashboards.common.format import timestamp
from dashboards.common.queries import relation_exists

# How a run's study is named wherever runs are grouped (a run without a config name is still shown).
STUDY_NAME = "coalesce(run_name, 'unnamed study')"


def run_page_name(file_name: str, run_id: str, latest_run_id: str) -> str:
    """The file of one run's copy of a per-run page (the latest run keeps the page's own name)."""
    return file_name if run_id == latest_run_id else f"{file_name.rsplit('.', 1)[0]}-{run_id[:12]}.html"


def study_names(con: duckdb.DuckDBPyConnection, run_ids: list[str]) -> dict[str, str]:
    """run id -> its study's name ({} before ``marts.dim_runs`` is built)."""
    if not relation_exists(con, "marts", "dim_runs"):
        return {}
    found = con.execute(
        f"select run_id, {STUDY_NAME} from marts.dim_runs where list_contains(?, run_id)", [run_ids]
    ).fetchall()
    return dict(found)


@dataclass(frozen=True)
class StudyRun:
    """One study run the site shows: its id, its study (config name) and when it started."""

    run_id: str
    study: str
    started_at: dt.datetime | None


@dataclass(frozen=True)
class RunsIn:
    """Where a study type's results are: ``table`` (``schema.name``), one ``run_column`` per study run."""

    table: str
    run_column: str = "run_id"

    def runs(self, con: duckdb.DuckDBPyConnection) -> list[StudyRun]:
        """The runs to show, newest first (ties by run id); [] before the table or ``marts.dim_runs`` exist."""
        schema, name = self.table.split(".")
        if not (relation_exists(con, schema, name) and relation_exists(con, "marts", "dim_runs")):
            return []
        found = con.execute(
            f"""select run_id, {STUDY_NAME} as study, started_at from marts.dim_runs
            where run_status = 'succeeded' and run_id in (select {self.run_column} from {self.table})
            order by started_at desc nulls last, run_id"""
        ).fetchall()
        return [StudyRun(*row) for row in found]

    def by_study(self, con: duckdb.DuckDBPyConnection) -> dict[str, list[StudyRun]]:
        """Study -> its runs, newest first; the study with the newest run first."""
        grouped: dict[str, list[StudyRun]] = {}
        for run in self.runs(con):
            grouped.setdefault(run.study, []).append(run)
        return grouped

    def latest(self, con: duckdb.DuckDBPyConnection) -> tuple[str, int] | None:
        """The newest run shown, and how many runs its study has (None when there is none)."""
        grouped = self.by_study(con)
        if not grouped:
            return None
        newest = next(iter(grouped.values()))
        return newest[0].run_id, len(newest)

    def choices(self, con: duckdb.DuckDBPyConnection) -> list[tuple[str, str]]:
        """A page's run selector: ``(run_id, label)`` of every run shown, newest first."""
        return [(run.run_id, f"run of {timestamp(run.started_at)}") for run in self.runs(con)]
