"""The findings overview (the site's index): one card per study type, its latest succeeded run first.

Each card leads with a verdict sentence that respects significance and power (a direction
only for a significant result; a null result says so, with its interval and what the study
could have detected), then the headline numbers with their intervals, then a link to the
study's page. Cards read marts and ``analysis.*`` only; each study family's card lives in
``dashboards/<family>/card.py`` and registers itself with :func:`card`; :func:`load_cards`
imports them all, and each card's ``order`` places it on the index.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import re
from typing import Callable

import duckdb

from dashboards.common.html import table, text
from dashboards.common.queries import number, relation_exists

ALPHA = 0.05
# (title, page) -> card body builder, in the index's order (each card's ``order``).
CARDS: list[tuple[str, str, Callable[[duckdb.DuckDBPyConnection], str | None]]] = []
_CARD_ORDER: dict[str, int] = {}


def card(title: str, page_file: str, *, order: int):
    """Decorator: a findings card builder ``fn(con) -> HTML body or None`` (None: no such study yet).

    Parameters
    ----------
    title : the card's heading.
    page_file : the study page the card links to.
    order : the card's place on the index (smaller first).
    """

    def decorate(fn):
        if page_file not in _CARD_ORDER:
            _CARD_ORDER[page_file] = order
            CARDS.append((title, page_file, fn))
            CARDS.sort(key=lambda entry: _CARD_ORDER[entry[1]])
        return fn

    return decorate


def load_cards() -> None:
    """Import every family's ``dashboards/<family>/card.py`` so its card registers."""
    import dashboards

    for family in pkgutil.iter_modules(dashboards.__path__):
        if family.ispkg and importlib.util.find_spec(f"dashboards.{family.name}.card") is not None:
            importlib.import_module(f"dashboards.{family.name}.card")


def latest_run(con, table_name: str, run_column: str = "run_id") -> tuple[str, int] | None:
    """The latest succeeded run holding rows in ``table_name``, and how many runs hold rows."""
    schema, name = table_name.split(".")
    if not relation_exists(con, schema, name):
        return None
    row = con.execute(f"""select arg_max(t.{run_column}, r.started_at), count(distinct t.{run_column})
        from {table_name} t join marts.dim_runs r on r.run_id = t.{run_column}
        where r.run_status = 'succeeded'""").fetchone()
    return None if row[0] is None else (row[0], row[1])


def pct(value) -> str:
    """A share as a percentage with one decimal, or a dash when missing."""
    return "–" if value is None else f"{100 * value:.1f}%"


def p_value(value, *, equals: bool = False) -> str:
    """A p-value: 3 significant digits, below 0.001 as "< 0.001" (a resampling p of 0 is not 0)."""
    if value is None:
        return "–"
    if value < 0.001:
        return "< 0.001"
    return ("= " if equals else "") + number(value)


def interval(low, high, scale: float = 1.0, unit: str = "") -> str:
    """An interval ``[low, high]`` scaled and with its unit, or a dash when a bound is missing."""
    if low is None or high is None:
        return "[–]"
    return f"[{number(low * scale)}{unit}, {number(high * scale)}{unit}]"


def card_body(verdict: str, caption: str, columns: list[str], rows: list[list], run_id: str, n_runs: int) -> str:
    """A card's HTML: the verdict, the headline table with its caption, and the run it reports."""
    older = f'; {n_runs - 1} earlier run(s) on the <a href="runs.html">runs page</a>' if n_runs > 1 else ""
    numbers = (f'<p class="note">{text(caption)}</p>' + table(columns, rows)) if rows else ""
    return (
        f'<p class="verdict">{verdict}</p>{numbers}'
        f'<p class="note">Latest run <code>{text(run_id[:12])}</code>{older}.</p>'
    )


def findings_body(con: duckdb.DuckDBPyConnection) -> str:
    """The index: a card per study type that has a succeeded run, newest run each."""
    if not relation_exists(con, "marts", "dim_runs"):
        return '<p class="note">No study has run yet: <code>make demo</code> or <code>biaswh run STUDY.toml</code>.</p>'
    cards, glance = [], []
    for number_, (title, page_file, build) in enumerate(CARDS, start=1):
        body = build(con)
        if body is None:
            continue
        anchor = f"finding-{number_}"
        cards.append(
            f'<section class="card" id="{anchor}"><h2><a href="{text(page_file)}">{text(title)}</a></h2>{body}'
            f'<p><a href="{text(page_file)}">Evidence and details →</a></p></section>'
        )
        # the card's own verdict (already escaped HTML), repeated in the at-a-glance list
        verdict = re.search(r'<p class="verdict">(.*?)</p>', body, flags=re.S)
        if verdict:
            glance.append(f'<li><a href="#{anchor}">{text(title)}</a>: {verdict.group(1)}</li>')
    if not cards:
        return '<p class="note">No study has finished yet; see the <a href="runs.html">runs page</a>.</p>'
    return (
        '<section class="glance"><h2>At a glance</h2><ul>' + "".join(glance) + "</ul></section>"
        '<p class="note">Each card below: the latest succeeded run of a study type, its finding first, then '
        'its headline numbers. Every run with its provenance is on the <a href="runs.html">runs page</a>.</p>'
        + "".join(cards)
    )
