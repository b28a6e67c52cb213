"""Write the static dashboard site: the findings overview, every run with provenance, and study pages.

The Vega, Vega-Lite and vega-embed JavaScript is written once into ``vendor/`` (from
vl-convert-python), so the site works offline from disk and no chart inlines it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import duckdb
import vl_convert

from dashboards.common.findings import findings_body, load_cards
from dashboards.common.html import page, table, text

# page file name -> (title, callable(con) -> HTML body). Later issues register study pages.
PAGES: dict[str, tuple[str, Callable[[duckdb.DuckDBPyConnection], str]]] = {}
# page file name -> callable(con) -> [(run_id, label)], newest first: pages drawn once per run.
RUN_LISTS: dict[str, Callable[[duckdb.DuckDBPyConnection], list[tuple[str, str]]]] = {}


def register_page(file_name: str, title: str, *, runs: Callable | None = None):
    """Decorator: add a study page to the site.

    Without ``runs`` the page is ``render(con)``. With ``runs`` (``runs(con)`` lists the study
    runs that have results, newest first, as ``(run_id, label)``) it is ``render(con, run_id)``,
    drawn once per run: ``file_name`` shows the latest run and ``<stem>-<run id>.html`` each
    earlier one, every copy opening with a run selector, so runs never mix on one page.
    """

    def decorate(render: Callable):
        PAGES[file_name] = (title, render)
        if runs is not None:
            RUN_LISTS[file_name] = runs
        return render

    return decorate


def run_page_name(file_name: str, run_id: str, latest_run_id: str) -> str:
    """The file of one run's copy of a per-run page (the latest run keeps the page's own name)."""
    return file_name if run_id == latest_run_id else f"{Path(file_name).stem}-{run_id[:12]}.html"


def _run_selector(file_name: str, runs: list[tuple[str, str]], current: str) -> str:
    items = []
    for run_id, label in runs:
        name = run_page_name(file_name, run_id, runs[0][0])
        entry = f"{text(label)} <code>{text(run_id[:12])}</code>"
        items.append(
            f'<li aria-current="page"><b>{entry}</b></li>'
            if run_id == current
            else f'<li><a href="{text(name)}">{entry}</a></li>'
        )
    return f'<nav class="run-selector" aria-label="study runs"><b>Run:</b><ul>{"".join(items)}</ul></nav>'


def _write_page(out_dir: Path, file_name: str, title: str, render: Callable, nav: str, con) -> None:
    if file_name not in RUN_LISTS:
        (out_dir / file_name).write_text(page(title, render(con), nav=nav), encoding="utf-8")
        return
    runs = RUN_LISTS[file_name](con)
    if not runs:
        (out_dir / file_name).write_text(page(title, render(con, None), nav=nav), encoding="utf-8")
        return
    for run_id, _ in runs:
        body = (_run_selector(file_name, runs, run_id) if len(runs) > 1 else "") + render(con, run_id)
        name = run_page_name(file_name, run_id, runs[0][0])
        (out_dir / name).write_text(page(title, body, nav=nav), encoding="utf-8")


def _write_bundle(site: Path) -> None:
    vendor = site / "vendor"
    vendor.mkdir(parents=True, exist_ok=True)
    stamp = vendor / "VERSION"
    version = f"vl-convert-python {vl_convert.__version__}" if hasattr(vl_convert, "__version__") else "vl-convert"
    bundle = vendor / "vega-bundle.js"
    if bundle.exists() and stamp.exists() and stamp.read_text() == version:
        return
    bundle.write_text(vl_convert.javascript_bundle(), encoding="utf-8")
    stamp.write_text(version)


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


def _index_body(con: duckdb.DuckDBPyConnection) -> str:
    rows = []
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
                code,
                counts,
                _provenance(run),
            ]
        )
    columns = ["run", "kind", "name", "status", "started (UTC)", "code version", "rows", "provenance"]
    intro = (
        '<p class="note">Every ingest and study run recorded in this warehouse, newest first. '
        "Each lists its parameters, the sha256 of every source file, and the package versions it ran with. "
        "Status is running, succeeded, failed, or interrupted: its process died (killed, crashed) before "
        "the run could close itself.</p>"
    )
    return intro + table(columns, rows, raw_columns=frozenset({"run", "status", "code version", "provenance"}))


def build_site(con: duckdb.DuckDBPyConnection, out_dir: Path) -> Path:
    """Write the whole site into ``out_dir`` and return that folder."""
    load_cards()
    out_dir.mkdir(parents=True, exist_ok=True)
    _write_bundle(out_dir)
    nav = _nav()
    (out_dir / "index.html").write_text(page("Bias warehouse: findings", findings_body(con), nav=nav), encoding="utf-8")
    (out_dir / "runs.html").write_text(page("Bias warehouse: runs", _index_body(con), nav=nav), encoding="utf-8")
    for file_name, (title, render) in PAGES.items():
        _write_page(out_dir, file_name, title, render, nav, con)
    return out_dir
