"""``biaswh export``: a study run's page tables as files: CSV or Parquet (the stored values), LaTeX or
Markdown (the page's display, significance marks and the verdict policy in each caption).

The tables are the ones the site draws for the run (the same render functions, captured with
:func:`biaswh.dashboards.common.downloads.capturing_tables`), so an export and a page never disagree.
Each table is one file named by its page and the heading above it; LaTeX also gets
``tables.tex``, a document that inputs them all (``pdflatex tables.tex``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import duckdb

from biaswh.dashboards.common.downloads import capturing_tables, csv_text, download_context, run_context
from biaswh.dashboards.common.findings import load_cards
from biaswh.dashboards.common.html import restart_chart_ids
from biaswh.dashboards.common.site import PAGES, RUN_LISTS
from biaswh.dashboards.common.table_formats import latex_table, markdown_table
from biaswh.stats.multiple_comparisons import ADJUSTMENT_NAMES, verdict_policy
from biaswh.warehouse.database.output_files import name_in_folder, replacing, write_text_atomically
from biaswh.warehouse.errors import UserError

ExportFormat = Literal["csv", "parquet", "latex", "markdown"]
FORMATS: tuple[str, ...] = ("csv", "parquet", "latex", "markdown")
EXTENSIONS = {"csv": "csv", "parquet": "parquet", "latex": "tex", "markdown": "md"}
_HEADING = re.compile(r"<h([1-4])[^>]*>(.*?)</h\1>", flags=re.S)
LATEX_DOCUMENT = r"""\documentclass{article}
\usepackage[utf8]{inputenc}
\usepackage[T1]{fontenc}
\usepackage{booktabs}
\usepackage{graphicx}
\usepackage[margin=2cm,landscape]{geometry}
\begin{document}
%s
\end{document}
"""


@dataclass(frozen=True)
class Export:
    """What ``biaswh export`` wrote: the run, its folder and the files."""

    run_id: str
    study: str
    folder: Path
    files: list[Path]

    @property
    def line(self) -> str:
        return f"exported {len(self.files)} tables of study {self.study}, run {self.run_id}, to {self.folder}"


def _plain(html_text: str) -> str:
    import html

    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", html_text)).split())


def study_run(con: duckdb.DuckDBPyConnection, study: str, run_id: str | None) -> tuple[str, str]:
    """(run id, study name): ``run_id`` of ``study``, or the study's (or audit's) latest succeeded run."""
    if run_id:
        found = con.execute(
            "select run_id, run_name from marts.dim_runs where run_id = ? or run_id like ? || '%'", [run_id, run_id]
        ).fetchall()
        if len(found) != 1:
            raise UserError(f"no single run {run_id!r} in this warehouse ({len(found)} match): see `biaswh sql`")
        return found[0]
    found = con.execute(
        "select run_id, run_name from marts.dim_runs where run_kind in ('study', 'audit') and run_name = ?"
        " and run_status = 'succeeded' order by started_at desc limit 1",
        [study],
    ).fetchone()
    if found is None:
        raise UserError(f"study {study!r} has no succeeded run in this warehouse: `biaswh run` it first")
    return found


def policy_of_run(con: duckdb.DuckDBPyConnection, run_id: str) -> dict:
    """The run's verdict policy as captions say it: {"alpha": 0.05, "adjustment": "Holm"}."""
    row = con.execute("select parameters from marts.dim_runs where run_id = ?", [run_id]).fetchone()
    parameters = json.loads(row[0]) if row and row[0] else {}
    settings = parameters.get("settings", parameters)  # an audit run records its [verdicts] at the top
    policy = verdict_policy(settings)
    return {"alpha": policy.alpha, "adjustment": ADJUSTMENT_NAMES.get(policy.method, policy.method)}


def _pages_of_run(con, run_id: str) -> list[str]:
    return [name for name, choices in RUN_LISTS.items() if run_id in {r for r, _ in choices(con)}]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "table"


def _captions(body: str, payloads: list[str]) -> list[str]:
    """The headings above each table in the page body, outermost first ("Pair set x: Discordant pairs: k = 1")."""
    captions, start = [], 0
    for payload in payloads:
        position = body.find(payload, start)
        path: dict[int, str] = {}
        for level, heading in _HEADING.findall(body[:position]) if position >= 0 else []:
            path = {k: v for k, v in path.items() if k < int(level)} | {int(level): _plain(heading)}
        captions.append(": ".join(path[k] for k in sorted(path)))
        start = max(position, start)
    return captions


def _text(output_format: str, table, caption: str, policy: dict, stem: str) -> str:
    if output_format == "csv":
        return csv_text(table.data)
    if output_format == "latex":
        return latex_table(table, caption=caption, policy=policy, label=stem)
    return markdown_table(table, caption=caption, policy=policy)


def _parquet(frame, path: Path) -> None:
    """``frame`` as Parquet; a text column that mixes numbers and words (a display fallback) as text."""
    mixed = [c for c in frame.columns if frame[c].dtype == object and frame[c].map(type).nunique() > 1]
    frame.astype({c: "string" for c in mixed}).to_parquet(path, index=False)


def export_study(
    con: duckdb.DuckDBPyConnection, study: str, *, run_id: str | None, output_format: ExportFormat, out: Path
) -> Export:
    """Write every table of the study run's pages into ``out/<study>-<run>/`` in ``output_format``."""
    if output_format not in FORMATS:
        raise UserError(f"--format must be one of {', '.join(FORMATS)}, not {output_format!r}")
    load_cards()
    run_id, study = study_run(con, study, run_id)
    pages = _pages_of_run(con, run_id)
    if not pages:
        raise UserError(f"run {run_id} of study {study!r} has no page with results: nothing to export")
    policy = policy_of_run(con, run_id)
    folder = name_in_folder(out, f"{_slug(study)}-{run_id[:12]}", what="the export folder")
    folder.mkdir(parents=True, exist_ok=True)
    files: list[Path] = []
    for page_file in pages:
        title, render = PAGES[page_file]
        restart_chart_ids()
        with download_context(**run_context(con, run_id)), capturing_tables() as tables:
            body = render(con, run_id)
        for number, (table, heading) in enumerate(zip(tables, _captions(body, [t.payload for t in tables])), start=1):
            stem = f"{Path(page_file).stem}-{number:02d}-{_slug(heading)}"
            path = name_in_folder(folder, f"{stem}.{EXTENSIONS[output_format]}", what="an exported table")
            caption = f"{title}: {heading}. Study {study}, run {run_id[:12]}." if heading else f"{title}."
            if output_format == "parquet":
                with replacing(path) as temporary:  # the output guard's atomic write
                    _parquet(table.data, temporary)
            else:
                write_text_atomically(path, _text(output_format, table, caption, policy, stem))
            files.append(path)
    if output_format == "latex":
        inputs = "\n".join(rf"\input{{{path.stem}}}" + "\n\\clearpage" for path in files)
        write_text_atomically(folder / "tables.tex", LATEX_DOCUMENT % inputs)
    return Export(run_id, study, folder, files)
