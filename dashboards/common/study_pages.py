"""The pages of studies and runs, and the type pages that list the studies (addresses: :mod:`.addresses`).

Each study type (a page registered with ``runs=``: dialect, WEAT, ...) draws its body once per
run. A run's page (``runs/<run id>.html``) holds the bodies of every type the run has results
in, after a line saying how it compares with the study's run before it; the study's page
(``studies/<study>.html``) is the same for its latest run. The type page (``dialect.html``)
lists the studies of its type, real data first, each with its runs.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import duckdb

from biaswh.analysis.common.result_rows import counted, row_counts, run_keyed_tables
from biaswh.analysis.common.run_comparison import Difference, compare_runs, results_identical
from biaswh.dashboards.common.addresses import depth_of, run_file, study_file
from biaswh.dashboards.common.downloads import download_context, run_context
from biaswh.dashboards.common.format import timestamp
from biaswh.dashboards.common.html import page, restart_chart_ids, text
from biaswh.dashboards.common.runs import BADGES, data_badge, data_kinds, study_names
from biaswh.warehouse.database.output_files import write_text_atomically
from biaswh.warehouse.runs.data_kind import DATA_KINDS

# Bodies of per-run pages already drawn, with what they were drawn from (see _cached_body).
DRAWN_FOLDER = ".drawn"


@dataclass(frozen=True)
class StudyType:
    """A page drawn per run: its file (the type page), title, ``render(con, run_id)`` and its runs newest first."""

    file_name: str
    title: str
    render: Callable
    runs: list[str]


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """sha256 of the dashboards package's code: a changed page or chart redraws every page."""
    digest = hashlib.sha256()
    root = Path(__file__).parent.parent  # dashboards/: every family's pages and charts, and common/
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@dataclass(frozen=True)
class RunStates:
    """What the bodies of runs' pages depend on besides the runs themselves, read once for a
    site: each run's status and end, and the analyses re-run on it (in end order)."""

    status: dict[str, tuple]
    analyses: list[tuple]


def run_states(con, run_ids: list[str]) -> RunStates:
    """:class:`RunStates` of ``run_ids`` (two queries, however many runs the warehouse holds)."""
    status = con.execute(
        "select run_id, run_status, finished_at from marts.dim_runs where list_contains(?, run_id)", [run_ids]
    ).fetchall()
    analyses = con.execute(
        "select parameters ->> 'target_run_id' as target, finished_at from marts.dim_runs"
        " where run_kind = 'analysis' and list_contains(?, target) order by target, finished_at",
        [run_ids],
    ).fetchall()
    return RunStates({row[0]: row for row in status}, analyses)


def _body_key(states: RunStates, kind: StudyType, run_id: str, previous: str | None) -> str:
    """What one run's body of a type depends on: that run and the runs before it (a page may compare
    with them), their status, the analyses re-run on them since, and the study's run before it."""
    earlier = kind.runs[kind.runs.index(run_id) :]
    state = sorted(states.status[r] for r in earlier if r in states.status)
    wanted = set(earlier)
    state += [row for row in states.analyses if row[0] in wanted]
    return hashlib.sha256(repr((code_digest(), kind.file_name, earlier, previous, state)).encode()).hexdigest()


def _cached_body(out_dir: Path, run_id: str, key: str, render: Callable[[], str]) -> str:
    """``render()``, or the body drawn for the same ``key`` before (kept in ``<site>/.drawn/``).

    A study run adds its pages; earlier runs keep their bodies, so the site's cost is the new
    run's pages, not the warehouse's history.
    """
    kept = out_dir / DRAWN_FOLDER / f"{run_file(run_id).split('/')[-1].removesuffix('.html')}.json"
    try:
        stored = json.loads(kept.read_text(encoding="utf-8"))
        if stored["key"] == key:
            return stored["body"]
    except (OSError, ValueError, KeyError):
        pass
    body = render()
    kept.parent.mkdir(exist_ok=True)
    write_text_atomically(kept, json.dumps({"key": key, "body": body}))
    return body


def comparison(con: duckdb.DuckDBPyConnection, run_id: str, previous: str | None) -> str:
    """The sentence on a run's page: identical to the study's run before it, or what changed."""
    if previous is None:
        return '<p class="comparison">The first succeeded run of this study in this warehouse.</p>'
    earlier = f'<a href="{text(run_file(previous))}"><code>{text(previous[:12])}</code></a>'
    differences = compare_runs(con, previous, run_id)
    counts = row_counts(con, run_id, run_keyed_tables(con))
    checked = f"{counted(len(counts), 'result table')}, {counted(sum(counts.values()), 'stored row')} compared"
    if not differences:
        return (
            f'<p class="comparison">Identical to the earlier run {earlier}: the same config, inputs and code, '
            f"and the same stored results ({checked}).</p>"
        )
    lines = "".join(f"<li>{text(difference.line())}</li>" for difference in differences)
    same = " Its results are the same" if results_identical(differences) else " Its results differ"
    return (
        f'<div class="comparison"><p>Changed since the earlier run {earlier} (A: that run, B: this one).'
        f"{same} ({checked}).</p><ul>{lines}</ul></div>"
    )


def difference_lines(differences: list[Difference]) -> list[str]:
    """One line per difference group, or ``["identical"]``: what ``biaswh diff`` prints."""
    return [difference.line() for difference in differences] or ["identical"]


def _drawn_body(
    con, out_dir: Path, run_id: str, previous: str | None, kinds: list[StudyType], states: RunStates
) -> str:
    """The run's comparison line and the bodies of its types (one page, charts numbered from 1)."""
    key = hashlib.sha256("".join(_body_key(states, k, run_id, previous) for k in kinds).encode()).hexdigest()

    def render() -> str:
        restart_chart_ids()
        parts = [comparison(con, run_id, previous)]
        for kind in kinds:
            with download_context(**run_context(con, run_id)):  # each table's download names its run
                body = kind.render(con, run_id)
            parts.append(f"<section><h2>{text(kind.title)}</h2>{body}</section>" if len(kinds) > 1 else body)
        return "".join(parts)

    return _cached_body(out_dir, run_id, key, render)


def _at(file_name: str, html: str) -> str:
    """A page's in-page links (``href="#x"``) kept on the page when its ``<base>`` is the site's top."""
    return html.replace('href="#', f'href="{text(file_name)}#') if depth_of(file_name) else html


def _selector(study: str, runs: list[str], current: str | None, started: dict[str, object]) -> str:
    items = "".join(
        f'<li aria-current="page"><b>run of {text(timestamp(started.get(r)))} <code>{text(r[:12])}</code></b>'
        " (shown)</li>"
        if r == current
        else f'<li><a href="{text(run_file(r))}">run of {text(timestamp(started.get(r)))}'
        f" <code>{text(r[:12])}</code></a></li>"
        for r in runs
    )
    latest = f'<a href="{text(study_file(study))}">{text(study)}</a>'
    return (
        f'<nav class="run-selector" aria-label="runs of this study"><b>Runs of {latest}</b> '
        f'<span class="note">(newest first; each run\'s page always shows that run)</span><ul>{items}</ul></nav>'
    )


def _started(con, run_ids: list[str]) -> dict[str, object]:
    """run id -> when it started."""
    found = con.execute("select run_id, started_at from marts.dim_runs where list_contains(?, run_id)", [run_ids])
    return dict(found.fetchall())


def write_study_pages(con, out_dir: Path, kinds: list[StudyType], nav: str) -> dict[str, list[str]]:
    """Write every run's page and every study's page; return study -> its runs, newest first."""
    all_runs = list(dict.fromkeys(r for kind in kinds for r in kind.runs))
    names, started, data = study_names(con, all_runs), _started(con, all_runs), data_kinds(con, all_runs)
    states = run_states(con, all_runs)
    studies: dict[str, list[str]] = {}
    for run_id in sorted(all_runs, key=lambda r: (str(started.get(r) or ""), r), reverse=True):
        studies.setdefault(names.get(run_id, "unnamed study"), []).append(run_id)
    for study, runs in studies.items():
        for position, run_id in enumerate(runs):
            previous = runs[position + 1] if position + 1 < len(runs) else None
            mine = [k for k in kinds if run_id in k.runs]
            body = _drawn_body(con, out_dir, run_id, previous, mine, states)
            kind = data.get(run_id, "real")
            shown = _Shown(study, run_id, " and ".join(k.title for k in mine), timestamp(started.get(run_id)), kind)
            selector = _selector(study, runs, run_id, started)
            _write(out_dir, run_file(run_id), shown.page(selector + shown.run_intro() + body, nav, latest=False))
            if position == 0:
                _write(out_dir, study_file(study), shown.page(selector + shown.study_intro() + body, nav, latest=True))
    return studies


@dataclass(frozen=True)
class _Shown:
    """What a run's page and its study's page say about the run."""

    study: str
    run_id: str
    titles: str
    when: str
    data: str

    def run_intro(self) -> str:
        study = text(study_file(self.study))
        return (
            f'<p class="note">Run <code>{text(self.run_id)}</code> of study <b>{text(self.study)}</b>, started '
            f"{text(self.when)} UTC. This page always shows this run; the study's latest run is at "
            f'<a href="{study}">{study}</a>.</p>'
        )

    def study_intro(self) -> str:
        return (
            f'<p class="note">Study <b>{text(self.study)}</b>: this address shows its latest succeeded run, '
            f'now <a href="{text(run_file(self.run_id))}"><code>{text(self.run_id[:12])}</code></a> of '
            f"{text(self.when)} UTC; each run keeps its own page.</p>"
        )

    def page(self, body: str, nav: str, *, latest: bool) -> str:
        file_name = study_file(self.study) if latest else run_file(self.run_id)
        title = f"{self.study} ({self.titles})" if latest else f"{self.study}, run {self.run_id[:12]} ({self.titles})"
        badge = (BADGES[self.data], data_badge(self.data)) if self.data in BADGES else None
        return page(title, _at(file_name, body), nav=nav, base="../", badge=badge)


def _write(out_dir: Path, file_name: str, html: str) -> None:
    path = out_dir / file_name
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomically(path, html)


def type_page_body(con, kind: StudyType, studies: dict[str, list[str]]) -> str:
    """A type page: its studies, real data first, then synthetic, then demo, each with its runs."""
    mine = {study: [r for r in runs if r in kind.runs] for study, runs in studies.items()}
    mine = {study: runs for study, runs in mine.items() if runs}
    data = data_kinds(con, [runs[0] for runs in mine.values()])
    ranked = sorted(mine.items(), key=lambda item: DATA_KINDS.index(data.get(item[1][0], "real")))
    items = []
    for study, runs in ranked:
        earlier = ", ".join(f'<a href="{text(run_file(r))}"><code>{text(r[:12])}</code></a>' for r in runs[1:])
        items.append(
            f'<li data-study="{text(study)}">{data_badge(data.get(runs[0], "real"))}'
            f'<a href="{text(study_file(study))}"><b>{text(study)}</b></a>: latest run '
            f'<a href="{text(run_file(runs[0]))}"><code>{text(runs[0][:12])}</code></a>'
            + (f"; earlier runs {earlier}" if earlier else "")
            + "</li>"
        )
    return (
        f'<p class="note">Every study of this type in this warehouse: research data first, then synthetic, '
        "then demo data. A study's page (<code>studies/NAME.html</code>) shows its latest succeeded run; "
        "each run's page (<code>runs/RUN.html</code>) always shows that run.</p>"
        f'<ul class="study-list">{"".join(items)}</ul>'
    )
