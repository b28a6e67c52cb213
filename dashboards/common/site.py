"""Write the static dashboard site: the findings overview, every run with provenance, the study
types' pages listing their studies, and a page per study and per run (dashboards/common/addresses.py).

The Vega, Vega-Lite and vega-embed JavaScript is copied once into ``vendor/`` (from
vl-convert-python, through a machine-level cache: dashboards/common/vendor.py), so the site
works offline from disk and no chart inlines it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import duckdb

from biaswh.dashboards.common.addresses import depth_of, run_file
from biaswh.dashboards.common.findings import findings_body, load_cards
from biaswh.dashboards.common.html import page, restart_chart_ids, table, text
from biaswh.dashboards.common.queries import catalog_read_once
from biaswh.dashboards.common.runs import BADGES, RunsIn, data_badge
from biaswh.dashboards.common.study_pages import DRAWN_FOLDER, StudyType, type_page_body, write_study_pages
from biaswh.dashboards.common.vendor import write_bundle
from biaswh.warehouse.database.output_files import write_text_atomically

__all__ = [
    "DRAWN_FOLDER",
    "PAGES",
    "PAGE_SETS",
    "RUN_LISTS",
    "STUDIES",
    "build_site",
    "register_page",
    "register_page_set",
]
# page file name -> (title, callable(con) -> HTML body); each study family registers its pages.
PAGES: dict[str, tuple[str, Callable[[duckdb.DuckDBPyConnection], str]]] = {}
# page file name -> callable(con) -> [(run_id, label)], newest first: pages drawn once per run
# (RunsIn.choices of the page's study type: dashboards/common/runs.py).
RUN_LISTS: dict[str, Callable[[duckdb.DuckDBPyConnection], list[tuple[str, str]]]] = {}
# page file name -> the studies/*.toml that fill it (named on the page while nothing has run)
STUDIES: dict[str, tuple[str, ...]] = {}
# callable(con) -> [(file name in a folder, title, body, data kind)]: pages one per thing, not per run
# (dashboards/common/page_subjects.py: one profile per subject).
PAGE_SETS: list[Callable[[duckdb.DuckDBPyConnection], list[tuple[str, str, str, str]]]] = []


def register_page_set(pages: Callable) -> Callable:
    """Decorator: ``pages(con)`` lists pages to write in a folder of the site, each with its data kind."""
    PAGE_SETS.append(pages)
    return pages


def register_page(file_name: str, title: str, *, runs: RunsIn | None = None, studies: tuple[str, ...] = ()):
    """Decorator: add a study page to the site.

    Without ``runs`` the page is ``render(con)``. With ``runs`` (where the study type's results
    are: the same :class:`~biaswh.dashboards.common.runs.RunsIn` its card names, so the page, its card
    and the runs page show the same runs) it is a study type: ``render(con, run_id)`` draws one
    run's body, shown on that run's page and its study's page, and ``file_name`` lists the
    studies of the type (dashboards/common/study_pages.py). ``studies``: the ``studies/*.toml``
    that fill the page, named when nothing has run.
    """

    def decorate(render: Callable):
        PAGES[file_name] = (title, render)
        STUDIES[file_name] = studies
        if runs is not None:
            RUN_LISTS[file_name] = runs.choices
        return render

    return decorate


def _no_run(file_name: str) -> str:
    studies = STUDIES.get(file_name) or ()
    # an audit config (studies/audit_*.toml) runs with `biaswh audit`, a study config with `biaswh run`
    named = " or ".join(
        f"<code>biaswh {'audit' if Path(s).name.startswith('audit') else 'run'} {text(s)}</code>" for s in studies
    )
    return f'<p class="note">Nothing has run for this page yet: {named or "run a study"}, then reload.</p>'


def _drawn(render: Callable, *args, **kwargs) -> str:
    """One page's body, its charts numbered from 1."""
    restart_chart_ids()
    return render(*args, **kwargs)


def _write_page(out_dir: Path, file_name: str, title: str, render: Callable, nav: str, con) -> None:
    """A page not drawn per run (``render(con)``)."""
    write_text_atomically(out_dir / file_name, page(title, _drawn(render, con), nav=nav))


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


def _pages_of_runs(kinds: list[StudyType]) -> dict[str, str]:
    """run id -> a link to its page, named by its study types."""
    titles: dict[str, list[str]] = {}
    for kind in kinds:
        for run_id in kind.runs:
            titles.setdefault(run_id, []).append(kind.title)
    return {
        run_id: f'<a href="{text(run_file(run_id))}">{text(" and ".join(found))}</a>'
        for run_id, found in titles.items()
    }


def _index_body(con: duckdb.DuckDBPyConnection, kinds: list[StudyType] | None = None) -> str:
    rows = []
    pages = _pages_of_runs(kinds or [])
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
    with catalog_read_once(con):  # the draw only reads: which relations exist is asked once
        return _build_site(con, out_dir)


def _build_site(con: duckdb.DuckDBPyConnection, out_dir: Path) -> Path:
    load_cards()
    out_dir.mkdir(parents=True, exist_ok=True)
    write_bundle(out_dir)
    nav = _nav()
    kinds = [
        StudyType(file_name, PAGES[file_name][0], PAGES[file_name][1], [run_id for run_id, _ in list_runs(con)])
        for file_name, list_runs in RUN_LISTS.items()
        if file_name in PAGES
    ]
    index = _drawn(findings_body, con)
    write_text_atomically(out_dir / "index.html", page("Bias warehouse: findings", index, nav=nav))
    runs_page = _drawn(_index_body, con, kinds)
    write_text_atomically(out_dir / "runs.html", page("Bias warehouse: runs", runs_page, nav=nav))
    studies = write_study_pages(con, out_dir, [k for k in kinds if k.runs], nav) if any(k.runs for k in kinds) else {}
    for kind in kinds:
        body = type_page_body(con, kind, studies) if kind.runs else _no_run(kind.file_name)
        write_text_atomically(out_dir / kind.file_name, page(kind.title, body, nav=nav))
    for file_name, (title, render) in PAGES.items():
        if file_name not in RUN_LISTS:
            _write_page(out_dir, file_name, title, render, nav, con)
    for pages in PAGE_SETS:
        for file_name, title, body, data in pages(con):
            badge = (BADGES[data], data_badge(data)) if data in BADGES else None
            (out_dir / file_name).parent.mkdir(parents=True, exist_ok=True)
            html = page(title, body, nav=nav, base="../" * depth_of(file_name), badge=badge)
            write_text_atomically(out_dir / file_name, html)
    return out_dir
