"""The findings overview (the site's index): per study type, one card per study from its latest run.

Each card leads with a verdict sentence that respects significance and power (a direction
only for a significant result; a null result says so, with its interval and what the study
could have detected), then the headline numbers with their intervals, then a link to the
study's page. Cards read marts and ``analysis.*`` only; each study's card lives in
``dashboards/<family>/card*.py`` and registers itself with :func:`card`; :func:`load_cards`
imports them.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import re
from dataclasses import dataclass
from typing import Callable

import duckdb

from biaswh.dashboards.common.addresses import study_file
from biaswh.dashboards.common.downloads import download_context, run_context
from biaswh.dashboards.common.format import interval as format_interval
from biaswh.dashboards.common.format import percent, plural
from biaswh.dashboards.common.html import table, text
from biaswh.dashboards.common.queries import relation_exists
from biaswh.dashboards.common.runs import RunsIn, data_badge
from biaswh.warehouse.runs.data_kind import DATA_KINDS

# The at-a-glance list's groups: findings on research data first.
GLANCE_HEADINGS = {"real": "Research data", "synthetic": "Synthetic data", "demo": "Demo data (not research findings)"}


@dataclass(frozen=True)
class Card:
    """A study type's card: its title, its page, and where its runs' results are."""

    title: str
    page_file: str
    runs: RunsIn
    build: Callable[..., str | None]
    order: int


# the index's order of study types
CARDS: list[Card] = []


def card(title: str, page_file: str, *, order: int, runs: RunsIn):
    """Decorator: a findings card builder ``fn(con, run_id, n_runs) -> HTML body or None``.

    Parameters
    ----------
    title : the card's heading.
    page_file : the study page the card links to.
    order : the card's place on the index (smaller first).
    runs : where the study type's results are; the same :class:`~biaswh.dashboards.common.runs.RunsIn`
        its page is registered with, so the index draws one card per study (config name) from the
        newest run that page's selector shows (:mod:`biaswh.dashboards.common.runs`).
    """

    def decorate(fn):
        if all(existing.page_file != page_file for existing in CARDS):
            CARDS.append(Card(title, page_file, runs, fn, order))
            CARDS.sort(key=lambda entry: entry.order)
        return fn

    return decorate


def load_cards() -> None:
    """Import every family's ``dashboards/<family>/card*.py`` so its cards register."""
    import biaswh.dashboards as dashboards

    for family in pkgutil.iter_modules(dashboards.__path__):
        if not family.ispkg:
            continue
        package = importlib.import_module(f"biaswh.dashboards.{family.name}")
        for module in pkgutil.iter_modules(package.__path__):
            if module.name == "card" or module.name.startswith("card_"):
                importlib.import_module(f"biaswh.dashboards.{family.name}.{module.name}")


def pct(value) -> str:
    """A share as a percentage in the one format (:func:`biaswh.dashboards.common.format.percent`)."""
    return percent(value)


def interval(low, high, scale: float = 1.0, unit: str = "", *, like=None) -> str:
    """An interval ``[low, high]`` in its estimate's unit and decimals (``like``: the estimate), or
    ``[–]`` when a bound is missing: shares (``scale`` 100, ``unit`` "%") as percentages, "pp" as points."""
    if scale == 100 and unit == "%":
        return format_interval(low, high, unit="percent")
    if unit == "pp":
        return format_interval(low, high, unit="points")
    return format_interval(low, high, like=like)


def card_body(
    verdict: str, caption: str, columns: list[str], rows: list[list], run_id: str, n_runs: int, *, data=None
) -> str:
    """A card's HTML: the verdict, the headline table with its caption, and the run it reports.

    ``data``: the stored rows behind the table, which its download holds (:func:`biaswh.dashboards.common.html.table`).
    """
    older = f"; {plural(n_runs - 1, 'earlier run')} of this study in its page's run selector" if n_runs > 1 else ""
    numbers = (f'<p class="note">{text(caption)}</p>' + table(columns, rows, data=data)) if rows else ""
    return (
        f'<p class="verdict">{verdict}</p>{numbers}'
        f'<p class="note">Latest run <code>{text(run_id[:12])}</code>{older}.</p>'
    )


def verdict_of(body: str | None) -> str:
    """The ``<p class="verdict">`` of a card body ('' without one): a study page leads with its card's finding."""
    found = re.search(r'<p class="verdict">.*?</p>', body or "", flags=re.S)
    return found.group(0) if found else ""


def _study_cards(con, spec: Card, start: int) -> list[tuple[str, str, str, str]]:
    """(anchor, study, data kind, card HTML) of each study of one type, latest run of each: real data
    first, then synthetic, then demo, newest study first within each."""
    cards = []
    for offset, (study, runs) in enumerate(spec.runs.by_study(con).items()):
        run_ids = [run.run_id for run in runs]
        with download_context(**run_context(con, run_ids[0])):
            body = spec.build(con, run_ids[0], len(run_ids))
        if body is None:
            continue
        anchor = f"finding-{start + offset}"
        href = text(study_file(study))
        cards.append(
            (
                anchor,
                study,
                runs[0].data,
                f'<section class="card" id="{anchor}" data-study="{text(study)}" data-run="{text(run_ids[0])}"'
                f' data-kind="{text(runs[0].data)}"><h3>{data_badge(runs[0].data)}<a href="{href}">{text(study)}</a>'
                "</h3>"
                f'{body}<p><a href="{href}">Evidence, provenance and run history of {text(study)} →</a></p></section>',
            )
        )
    return cards


def findings_body(con: duckdb.DuckDBPyConnection) -> str:
    """The index: per study type, a card per study (config name) from its latest succeeded run;
    at a glance, the findings on research data first, then synthetic, then demo data."""
    if not relation_exists(con, "marts", "dim_runs"):
        return '<p class="note">No study has run yet: <code>make demo</code> or <code>biaswh run STUDY.toml</code>.</p>'
    sections, glance, count = [], {kind: [] for kind in DATA_KINDS}, 1
    for spec in CARDS:
        cards = _study_cards(con, spec, count)
        count += len(cards) + 1
        if not cards:
            continue
        sections.append(
            f'<section class="study-type"><h2>{text(spec.title)}</h2>{"".join(c[3] for c in cards)}</section>'
        )
        for anchor, study, data, html in cards:
            # the card's own verdict (already escaped HTML), repeated in the at-a-glance list
            verdict = re.search(r'<p class="verdict">(.*?)</p>', html, flags=re.S)
            if verdict:
                glance[data].append(
                    f'<li>{data_badge(data)}<a href="#{anchor}">{text(study)}</a> ({text(spec.title)}): '
                    f"{verdict.group(1)}</li>"
                )
    if not sections:
        return '<p class="note">No study has finished yet; see the <a href="runs.html">runs page</a>.</p>'
    at_a_glance = "".join(
        f"<h3>{GLANCE_HEADINGS[kind]}</h3><ul>{''.join(items)}</ul>" for kind, items in glance.items() if items
    )
    return (
        f'<section class="glance"><h2>At a glance</h2>{at_a_glance}</section>'
        '<p class="note">Below, by study type: a card for each study (its config\'s name) from its latest '
        "succeeded run, research data first, its finding first, then its headline numbers; the study's page "
        "holds the evidence and links its earlier runs. Every run with its provenance is on the "
        '<a href="runs.html">runs page</a>.</p>' + "".join(sections)
    )
