"""Which study runs the site shows: one rule for every card, page, run selector and the runs page.

A study type keeps its results in one table, named once by a :class:`RunsIn` in the family's
``card*.py`` and given to both its ``@card`` and its ``@register_page``. The runs shown are the
**succeeded** study runs holding rows in that table, grouped per study (its config's name): real
data first, then synthetic, then demo (:func:`data_kind`), newest first within each, ties by run
id. A failed or interrupted run keeps its rows for the record but is never a page, a card or a
selector entry; the runs page lists it, without a page link.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from html import escape

import duckdb

from biaswh.dashboards.common.format import timestamp
from biaswh.dashboards.common.queries import relation_exists
from biaswh.warehouse.runs.data_kind import DATA_KINDS, data_kind_of

# How a run's study is named wherever runs are grouped (a run without a config name is still shown).
STUDY_NAME = "coalesce(run_name, 'unnamed study')"


# A badge before the title of every card and page of a run that is not on research data.
BADGES = {"demo": "Demo data", "synthetic": "Synthetic data"}


def data_kinds(con: duckdb.DuckDBPyConnection, run_ids: list[str]) -> dict[str, str]:
    """run id -> ``real``, ``synthetic`` or ``demo``: what its study's config states, stored with the
    run; inferred for runs recorded before (:func:`biaswh.warehouse.runs.data_kind.data_kind_of`). Runs not in
    ``marts.dim_runs`` are left out."""
    if not relation_exists(con, "marts", "dim_runs"):
        return {}
    found = con.execute(
        "select run_id, parameters, run_name from marts.dim_runs where list_contains(?, run_id)", [run_ids]
    ).fetchall()
    return {run_id: data_kind_of(parameters, name) for run_id, parameters, name in found}


def data_kind(con: duckdb.DuckDBPyConnection, run_id: str) -> str:
    """The data kind of one run (``real`` for a run the warehouse does not know): cards, pages and
    exports label a run with it (e.g. a ``data`` column)."""
    return data_kinds(con, [run_id]).get(run_id, "real")


def data_badge(kind: str) -> str:
    """The visible label of a demo or synthetic run ("" for real data), as HTML."""
    label = BADGES.get(kind)
    # escaped here, not with biaswh.dashboards.common.html.text: html.py's downloads import this module
    return f'<span class="badge badge-{escape(kind)}">{escape(label)}</span> ' if label else ""


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
    """One study run the site shows: its id, its study (config name), when it started, and its data kind."""

    run_id: str
    study: str
    started_at: dt.datetime | None
    data: str = "real"


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
            f"""select run_id, {STUDY_NAME} as study, started_at, parameters, run_name from marts.dim_runs
            where run_status = 'succeeded' and run_id in (select {self.run_column} from {self.table})
            order by started_at desc nulls last, run_id"""
        ).fetchall()
        return [
            StudyRun(run_id, study, started, data_kind_of(parameters, run_name))
            for run_id, study, started, parameters, run_name in found
        ]

    def by_study(self, con: duckdb.DuckDBPyConnection) -> dict[str, list[StudyRun]]:
        """Study -> its runs, newest first; real data first, then synthetic, then demo (by the data
        of each study's latest run), the study with the newest run first within each."""
        grouped: dict[str, list[StudyRun]] = {}
        for run in self.runs(con):
            grouped.setdefault(run.study, []).append(run)
        ranked = sorted(grouped.items(), key=lambda item: DATA_KINDS.index(item[1][0].data))  # stable: newest first
        return dict(ranked)

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
