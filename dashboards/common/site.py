"""Write the static dashboard site: the findings overview, every run with provenance, and study pages.

The Vega, Vega-Lite and vega-embed JavaScript is copied once into ``vendor/`` (from
vl-convert-python, through a machine-level cache: dashboards/common/vendor.py), so the site
works offline from disk and no chart inlines it.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import Callable

import duckdb

from dashboards.common.findings import findings_body, load_cards
from dashboards.common.html import page, restart_chart_ids, table, text
from dashboards.common.runs import RunsIn, run_page_name, study_names
from dashboards.common.vendor import write_bundle

# Bodies of per-run pages already drawn, with what they were drawn from (see _cached_body).
DRAWN_FOLDER = ".drawn"
# page file name -> (title, callable(con) -> HTML body); each study family registers its pages.
PAGES: dict[str, tuple[str, Callable[[duckdb.DuckDBPyConnection], str]]] = {}
# page file name -> callable(con) -> [(run_id, label)], newest first: pages drawn once per run
# (RunsIn.choices of the page's study type: dashboards/common/runs.py).
RUN_LISTS: dict[str, Callable[[duckdb.DuckDBPyConnection], list[tuple[str, str]]]] = {}
# page file name -> the studies/*.toml that fill it (named on the page while nothing has run)
STUDIES: dict[str, tuple[str, ...]] = {}


def register_page(file_name: str, title: str, *, runs: RunsIn | None = None, studies: tuple[str, ...] = ()):
    """Decorator: add a study page to the site.

    Without ``runs`` the page is ``render(con)``. With ``runs`` (where the study type's results
    are: the same :class:`~dashboards.common.runs.RunsIn` its card names, so the page, its card
    and the runs page show the same runs) it is ``render(con, run_id)``, drawn once per run:
    ``file_name`` shows the latest run and ``<stem>-<run id>.html`` each earlier one, every copy
    opening with a run selector grouped by study, so runs never mix on one page. ``studies``:
    the ``studies/*.toml`` that fill the page, named when nothing has run.
    """

    def decorate(render: Callable):
        PAGES[file_name] = (title, render)
        STUDIES[file_name] = studies
        if runs is not None:
            RUN_LISTS[file_name] = runs.choices
        return render

    return decorate


def _run_selector(file_name: str, runs: list[tuple[str, str]], current: str, studies: dict[str, str]) -> str:
    """The study and run selector: one line per study (newest study first), its runs newest first."""
    by_study: dict[str, list[str]] = {}
    for run_id, label in runs:
        name = run_page_name(file_name, run_id, runs[0][0])
        entry = f"{text(label)} <code>{text(run_id[:12])}</code>"
        by_study.setdefault(studies.get(run_id, "unnamed study"), []).append(
            f'<li aria-current="page"><b>{entry}</b> (shown)</li>'
            if run_id == current
            else f'<li><a href="{text(name)}">{entry}</a></li>'
        )
    lines = "".join(f"<div><b>{text(study)}</b>: <ul>{''.join(items)}</ul></div>" for study, items in by_study.items())
    return (
        f'<nav class="run-selector" aria-label="studies and runs"><b>Study and run</b> '
        f'<span class="note">(newest first; each study\'s earlier runs stay here)</span>{lines}</nav>'
    )


def _no_run(file_name: str) -> str:
    studies = STUDIES.get(file_name) or ()
    named = " or ".join(f"<code>biaswh run {text(s)}</code>" for s in studies)
    return f'<p class="note">Nothing has run for this page yet: {named or "run a study"}, then reload.</p>'


@functools.lru_cache(maxsize=1)
def _code_digest() -> str:
    """sha256 of the dashboards package's code: a changed page or chart redraws every page."""
    digest = hashlib.sha256()
    root = Path(__file__).parent.parent  # dashboards/: every family's pages and charts, and common/
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _body_key(con, file_name: str, runs: list[tuple[str, str]], position: int) -> str:
    """What one run's copy of a per-run page shows depends on: that run and the runs before it
    (a page may compare with them), their status, and the analyses re-run on them since."""
    earlier = [run_id for run_id, _ in runs[position:]]
    state = con.execute(
        "select run_id, status, finished_at from raw.runs where run_id in (select unnest(?)) order by run_id",
        [earlier],
    ).fetchall()
    state += con.execute(
        "select parameters ->> 'target_run_id' as target, finished_at from raw.runs"
        " where kind = 'analysis' and target in (select unnest(?)) order by target, finished_at",
        [earlier],
    ).fetchall()
    return hashlib.sha256(repr((_code_digest(), file_name, earlier, state)).encode()).hexdigest()


def _cached_body(out_dir: Path, file_name: str, run_id: str, key: str, render: Callable) -> str:
    """``render()``, or the body drawn for the same ``key`` before (kept in ``<site>/.drawn/``).

    A study run adds a copy of its pages; the copies of earlier runs keep their bodies, so the
    site's cost is the new run's pages, not the warehouse's history.
    """
    kept = out_dir / DRAWN_FOLDER / f"{Path(file_name).stem}-{run_id}.json"
    try:
        stored = json.loads(kept.read_text(encoding="utf-8"))
        if stored["key"] == key:
            return stored["body"]
    except (OSError, ValueError, KeyError):
        pass
    body = render()
    kept.parent.mkdir(exist_ok=True)
    kept.write_text(json.dumps({"key": key, "body": body}), encoding="utf-8")
    return body


def _drawn(render: Callable, *args, **kwargs) -> str:
    """One page's body, its charts numbered from 1."""
    restart_chart_ids()
    return render(*args, **kwargs)


def _write_page(out_dir: Path, file_name: str, title: str, render: Callable, nav: str, con, runs) -> None:
    if file_name not in RUN_LISTS:
        (out_dir / file_name).write_text(page(title, _drawn(render, con), nav=nav), encoding="utf-8")
        return
    if not runs:
        (out_dir / file_name).write_text(page(title, _no_run(file_name), nav=nav), encoding="utf-8")
        return
    studies = study_names(con, [run_id for run_id, _ in runs])
    for position, (run_id, _) in enumerate(runs):
        key = _body_key(con, file_name, runs, position)
        drawn = _cached_body(out_dir, file_name, run_id, key, lambda run_id=run_id: _drawn(render, con, run_id))
        body = _run_selector(file_name, runs, run_id, studies) + drawn
        name = run_page_name(file_name, run_id, runs[0][0])
        (out_dir / name).write_text(page(title, body, nav=nav), encoding="utf-8")


def _nav() -> str:
    links = ['<a href="index.html">Findings</a>', '<a href="runs.html">Runs</a>'] + [
        f'<a href="{text(name)}">{text(title)}</a>' for name, (title, _) in sorted(PAGES.items())
    ]
    return "".join(links)


def _provenance(row: dict) -> str:
    sources = (
        "".join(
            f'<li><span class="mono">{text(s["path"])}</span><br>sha256 <code>{text(s["sha256"])}</code></li>'
            for s in row["sources"] or []
        )
        or "<li>none</li>"
    )
    packages = ", ".join(f"{k} {v}" for k, v in json.loads(row["package_versions"] or "{}").items())
    inputs = ", ".join(f"{i['dataset']} {i['name']} v{i['version']}" for i in row.get("inputs") or [])
    pinned = (f"<p><b>Inputs read</b> {text(inputs)}</p>" if inputs else "") + (
        f"<p><b>Run parameters</b> <code>{text(row['run_parameters'])}</code></p>" if row.get("run_parameters") else ""
    )
    return (
        f"<details><summary>details</summary><p><b>Parameters</b> <code>{text(row['parameters'])}</code></p>"
        f"{pinned}<p><b>Sources</b></p><ul>{sources}</ul><p><b>Packages</b> {text(packages)}</p>"
        f"<p><b>Message</b> {text(row['message'])}</p></details>"
    )


def _runs_rows(con: duckdb.DuckDBPyConnection) -> list[dict]:
    has_mart = con.execute(
        "select count(*) from information_schema.tables where table_schema = 'marts' and table_name = 'dim_runs'"
    ).fetchone()[0]
    if has_mart:
        query = "select * from marts.dim_runs order by started_at desc"
    else:  # a warehouse that has ingested but not yet been built
        query = (
            "select r.*, r.kind as run_kind, r.name as run_name, r.status as run_status, "
            "coalesce(list({'path': s.source_path, 'sha256': s.source_sha256}) filter (where s.run_id is not null), [])"
            " as sources "
            "from raw.runs r left join raw.run_sources s using (run_id) group by all order by r.started_at desc"
        )
    cursor = con.execute(query)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def _short_version(version: str | None) -> str:
    version = version or "unknown"
    short = version[:12] if len(version) >= 40 else version
    return f"{short} (dirty)" if version.endswith("-dirty") else short


def _pages_of_runs(page_runs: dict[str, list[str]]) -> dict[str, str]:
    """run id -> links to the pages drawn for it."""
    links: dict[str, list[str]] = {}
    for file_name, run_ids in page_runs.items():
        for run_id in run_ids:
            href = run_page_name(file_name, run_id, run_ids[0])
            links.setdefault(run_id, []).append(f'<a href="{text(href)}">{text(PAGES[file_name][0])}</a>')
    return {run_id: "<br>".join(found) for run_id, found in links.items()}


def _index_body(con: duckdb.DuckDBPyConnection, page_runs: dict[str, list[str]] | None = None) -> str:
    rows = []
    pages = _pages_of_runs(page_runs or {})
    for run in _runs_rows(con):
        status = f'<span class="status-{text(run["run_status"])}">{text(run["run_status"])}</span>'
        counts = ", ".join(f"{k}: {v:,}" for k, v in json.loads(run["row_counts"] or "{}").items())
        run_id = f'<span class="mono" title="{text(run["run_id"])}">{text(run["run_id"][:12])}</span>'
        code = (
            f'<span class="mono" title="{text(run["code_version"])}">{text(_short_version(run["code_version"]))}</span>'
        )
        rows.append(
            [
                run_id,
                run["run_kind"],
                run["run_name"],
                status,
                str(run["started_at"])[:19],
                pages.get(run["run_id"], ""),
                code,
                counts,
                _provenance(run),
            ]
        )
    columns = ["run", "kind", "name", "status", "started (UTC)", "pages", "code version", "rows", "provenance"]
    intro = (
        '<p class="note">Every ingest and study run recorded in this warehouse, newest first. '
        "Each lists its parameters, the sha256 of every source file, and the package versions it ran with. "
        "Status is running, succeeded, failed, or interrupted: its process died (killed, crashed) before "
        "the run could close itself.</p>"
    )
    return intro + table(columns, rows, raw_columns=frozenset({"run", "status", "pages", "code version", "provenance"}))


def build_site(con: duckdb.DuckDBPyConnection, out_dir: Path) -> Path:
    """Write the whole site into ``out_dir`` and return that folder."""
    load_cards()
    out_dir.mkdir(parents=True, exist_ok=True)
    write_bundle(out_dir)
    nav = _nav()
    runs = {file_name: list_runs(con) for file_name, list_runs in RUN_LISTS.items()}
    page_runs = {file_name: [run_id for run_id, _ in found] for file_name, found in runs.items()}
    index = _drawn(findings_body, con, page_runs=page_runs)
    (out_dir / "index.html").write_text(page("Bias warehouse: findings", index, nav=nav), encoding="utf-8")
    runs_page = _drawn(_index_body, con, page_runs)
    (out_dir / "runs.html").write_text(page("Bias warehouse: runs", runs_page, nav=nav), encoding="utf-8")
    for file_name, (title, render) in PAGES.items():
        _write_page(out_dir, file_name, title, render, nav, con, runs.get(file_name))
    return out_dir
