"""Findings and page charts for the Python API (:mod:`biaswh.api`), taken from the dashboards.

The findings are the site index's cards (``dashboards/<family>/card*.py``), so a notebook and the site
never disagree on a verdict; the charts are the ones a page embeds, collected while the page
renders (:func:`biaswh.dashboards.common.html.capturing_charts`), so no chart is built twice.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

import altair as alt
import duckdb
import polars as pl

from biaswh.dashboards.common.html import capturing_charts, text
from biaswh.dashboards.common.runs import data_badge
from biaswh.warehouse.errors import UserError

_VERDICT = re.compile(r'<p class="verdict">(.*?)</p>', flags=re.S)
_TAG = re.compile(r"<[^>]+>")
SCHEMA = {
    "study_type": pl.String,
    "page": pl.String,
    "study": pl.String,
    "run_id": pl.String,
    "started_at": pl.Datetime("us"),
    "data": pl.String,
    "verdict": pl.String,
}


@dataclass(frozen=True)
class Findings:
    """The findings as a polars frame and the cards they come from.

    ``frame`` has one row per study, its latest succeeded run and its data kind (``real``,
    ``synthetic`` or ``demo``), in the index's order; ``cards`` holds each card's HTML body, in
    frame order.

    DataFrame methods and columns work on the object itself (``findings["verdict"]``,
    ``findings.to_pandas()``); in Jupyter it renders as the site's cards.
    """

    frame: pl.DataFrame
    cards: tuple[str, ...]

    def __getattr__(self, name: str):
        return getattr(self.frame, name)

    def __getitem__(self, key):
        return self.frame[key]

    def __len__(self) -> int:
        return self.frame.height

    def __repr__(self) -> str:
        return repr(self.frame)

    def _repr_html_(self) -> str:
        """The cards: every value from the warehouse is escaped (the card bodies escape their own)."""
        if not self.cards:
            return "<p>No finding yet: run a study (biaswh.run_study or biaswh run STUDY.toml).</p>"
        sections = []
        for row, body in zip(self.frame.iter_rows(named=True), self.cards):
            started = str(row["started_at"])[:16] if row["started_at"] else "–"
            sections.append(
                f'<section style="border:1px solid #ddd;border-radius:6px;padding:0.2rem 1rem;margin:0.6rem 0">'
                f"<h3>{data_badge(row['data'])}{text(row['study_type'])}</h3>"
                f"<p>Study <b>{text(row['study'])}</b>, run <code>{text(row['run_id'])}</code>,"
                f" started {text(started)} UTC</p>{body}</section>"
            )
        return "".join(sections)


def _plain(fragment: str) -> str:
    return " ".join(html.unescape(_TAG.sub("", fragment)).split())


def read_findings(con: duckdb.DuckDBPyConnection, *, study: str | None = None) -> Findings:
    """Build every findings card the site index shows; keep those of ``study`` (a study or page name)."""
    from biaswh.dashboards.common.findings import CARDS, load_cards
    from biaswh.dashboards.common.queries import relation_exists

    load_cards()

    if not relation_exists(con, "marts", "dim_runs"):
        return Findings(pl.DataFrame(schema=SCHEMA), ())
    rows, cards = [], []
    for spec in CARDS:  # one card per study (its config's name) from its latest run: the index's rule
        for name, runs in spec.runs.by_study(con).items():
            body = spec.build(con, runs[0].run_id, len(runs))
            if body is None:
                continue
            verdict = _VERDICT.search(body)
            rows.append(
                {
                    "study_type": spec.title,
                    "page": spec.page_file.removesuffix(".html"),
                    "study": name,
                    "run_id": runs[0].run_id,
                    "started_at": runs[0].started_at,
                    "data": runs[0].data,
                    "verdict": _plain(verdict.group(1)) if verdict else _plain(body),
                }
            )
            cards.append(body)
    if study is not None:
        keep = [i for i, r in enumerate(rows) if study in (r["study"], r["page"])]
        if not keep:
            known = sorted({r["study"] for r in rows if r["study"]} | {r["page"] for r in rows})
            raise UserError(
                f"findings: no finding for study {study!r}; findings exist for {', '.join(known) or 'no study yet'}"
                " (one per study: its latest succeeded run)"
            )
        rows, cards = [rows[i] for i in keep], [cards[i] for i in keep]
    return Findings(pl.DataFrame(rows, schema=SCHEMA), tuple(cards))


def _load_pages() -> dict:
    """Import every page module (each registers itself with the site)."""
    from biaswh.dashboards.common.site import PAGES
    from biaswh.plugins import load_plugins

    load_plugins(("dashboards",))
    return PAGES


def _title(spec: alt.TopLevelMixin, number: int) -> str:
    title = spec.to_dict().get("title")
    if isinstance(title, dict):
        title = title.get("text")
    if isinstance(title, list):
        title = " ".join(str(t) for t in title)
    return str(title) if title else f"chart {number}"


def _pick_run(con, file_name: str, page: str, run_id: str | None) -> str | None:
    from biaswh.dashboards.common.site import RUN_LISTS

    runs = [r for r, _ in RUN_LISTS[file_name](con)]
    if run_id is None:
        return runs[0] if runs else None
    matches = [r for r in runs if r.startswith(run_id)]
    if len(matches) != 1:
        shown = ", ".join(r[:12] for r in runs) or "none yet"
        raise UserError(f"charts: run_id {run_id!r} names {len(matches)} of the {page} page's runs ({shown})")
    return matches[0]


def page_charts(
    con: duckdb.DuckDBPyConnection, page: str, *, run_id: str | None = None
) -> dict[str, alt.TopLevelMixin]:
    """The charts one dashboard page embeds, keyed by title (repeats numbered), in page order."""
    from biaswh.dashboards.common.site import RUN_LISTS

    pages = _load_pages()
    file_name = page if page.endswith(".html") else f"{page}.html"
    if file_name not in pages:
        names = ", ".join(sorted(name.removesuffix(".html") for name in pages))
        raise UserError(f"charts: no page {page!r}; pages: {names}")
    _, render = pages[file_name]
    with capturing_charts() as captured:
        if file_name in RUN_LISTS:
            render(con, _pick_run(con, file_name, page, run_id))
        elif run_id is not None:
            raise UserError(f"charts: the {page} page is not drawn per run; leave run_id out")
        else:
            render(con)
    charts: dict[str, alt.TopLevelMixin] = {}
    for number, spec in enumerate(captured, start=1):
        title = _title(spec, number)
        key, repeat = title, 1
        while key in charts:
            repeat += 1
            key = f"{title} ({repeat})"
        charts[key] = spec
    return charts
