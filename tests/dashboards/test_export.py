"""``biaswh export``: a study run's page tables as CSV and Parquet (the stored values) and as LaTeX and
Markdown for papers (the page's display, significance marks, the verdict policy in the caption)."""

from __future__ import annotations

import re
import shutil
import subprocess

import duckdb
import pandas as pd
import pytest

from biaswh.dashboards.common.downloads import CapturedTable
from biaswh.dashboards.common.table_formats import latex_escape, latex_table, markdown_table
from tests.conftest import run_here

pytestmark = pytest.mark.dbt
POLICY = {"alpha": 0.05, "adjustment": "Holm"}


def _table(significant: list[bool]) -> CapturedTable:
    data = pd.DataFrame(
        {
            "retriever": ["bm25", "dense_x"],
            "p_adjusted": [0.0123, 0.5],
            "adjustment": ["Holm", "Holm"],
            "family": ["bm25 over k", "dense_x over k"],
            "family_size": [3, 3],
            "is_significant": significant,
        }
    )
    display = [["bm25", "0.012", "yes"], ["dense_x", "0.50", "no"]]
    return CapturedTable(["retriever", "p_adjusted", "is_significant"], display, data, "")


def test_latex_escapes_every_special_character_and_marks_significant_rows():
    assert latex_escape("a_b & 50% #1 $x {y} ~ ^ \\") == (
        r"a\_b \& 50\% \#1 \$x \{y\} \textasciitilde{} \textasciicircum{} \textbackslash{}"
    )
    assert latex_escape("χ² − α → ∞ …") == r"$\chi^2$ - $\alpha$ $\rightarrow$ $\infty$ \ldots{}"
    tex = latex_table(_table([True, False]), caption="Paired tests", policy=POLICY, label="t:1")
    assert r"bm25 & 0.012$^{*}$ & yes \\" in tex and r"dense\_x & 0.50 & no \\" in tex
    assert r"\toprule" in tex and r"\midrule" in tex and r"\bottomrule" in tex
    assert "Holm-adjusted p < 0.05 within bm25 over k; dense\\_x over k; 3 tests per family" in tex
    markdown = markdown_table(_table([False, True]), caption="Paired tests", policy=POLICY)
    assert "| dense_x | 0.50* | no |" in markdown and "| bm25 | 0.012 | yes |" in markdown


def _balanced(tex: str) -> bool:
    opened = re.findall(r"\\begin\{(\w+)\}", tex)
    closed = re.findall(r"\\end\{(\w+)\}", tex)
    return sorted(opened) == sorted(closed) and tex.count("{") - tex.count(r"\{") == tex.count("}") - tex.count(r"\}")


@pytest.fixture(scope="module")
def exported(demo_site, tmp_path_factory):
    home = demo_site.parent
    out = tmp_path_factory.mktemp("exports")
    for output_format in ("csv", "parquet", "latex", "markdown"):
        completed = run_here("export", "demo_weat", "--format", output_format, "--out", str(out), home=home)
        assert "exported" in completed.stdout
    (folder,) = out.iterdir()
    return home, folder


def test_csv_and_parquet_hold_the_stored_numbers_of_every_table(exported):
    home, folder = exported
    csvs = sorted(folder.glob("*.csv"))
    assert len(csvs) >= 5 and len(csvs) == len(list(folder.glob("*.parquet")))
    results = next(path for path in csvs if "results" in path.name)
    frame = pd.read_csv(results)
    assert {"run_id", "study", "effect_size", "ci_low", "ci_high", "p_value", "p_adjusted"} <= set(frame.columns)
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        stored = con.execute(
            "select w.test, w.effect_size, w.ci_low, w.ci_high, w.p_value, i.p_adjusted from marts.fct_weat_results w"
            " join analysis.weat_interpretations i using (run_id, embedding, test_set, test)"
            " where w.run_id = ? and w.embedding = ? and w.status = 'computed' order by w.test",
            [frame["run_id"][0], frame["embedding"][0]],
        ).fetchall()
    first = frame[(frame["embedding"] == frame["embedding"][0]) & (frame["status"] == "computed")].sort_values("test")
    columns = ["test", "effect_size", "ci_low", "ci_high", "p_value", "p_adjusted"]
    assert [tuple(row) for row in first[columns].itertuples(index=False)] == stored
    parquet = pd.read_parquet(results.with_suffix(".parquet"))
    assert parquet[columns].equals(frame[columns])


def test_the_latex_document_compiles_and_the_markdown_marks_significance(exported, tmp_path):
    _, folder = exported
    document = (folder / "tables.tex").read_text()
    tables = sorted(folder.glob("weat-*.tex"))
    assert tables and all(f"\\input{{{path.stem}}}" in document for path in tables)
    results = next(path for path in tables if "results" in path.name).read_text()
    assert "$^{*}$" in results and "adjusted p < 0.05" in results and "(the study's verdict policy)" in results
    assert all(_balanced(path.read_text()) for path in tables)
    markdown = next(path for path in folder.glob("*.md") if "results" in path.name).read_text()
    assert "*" in markdown.split("\n\n", 1)[1] and "adjusted p < 0.05" in markdown
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed: the tables were checked for balanced environments and braces")
    shutil.copytree(folder, tmp_path / "tex")
    compiled = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "tables.tex"],
        cwd=tmp_path / "tex",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert compiled.returncode == 0, compiled.stdout[-2000:]
    assert (tmp_path / "tex" / "tables.pdf").stat().st_size > 1000


def test_an_unknown_study_or_run_is_one_line_with_exit_code_2(demo_site, tmp_path):
    completed = run_here("export", "no_such_study", "--format", "csv", home=demo_site.parent, check=False)
    assert completed.returncode == 2
    assert completed.stderr.strip() == (
        "biaswh: error: study 'no_such_study' has no succeeded run in this warehouse: `biaswh run` it first"
    )


def test_an_export_into_the_warehouse_folder_is_refused_by_the_output_guard(demo_site):
    home = demo_site.parent
    completed = run_here(
        "export", "demo_weat", "--format", "csv", "--out", str(home / "tables"), home=home, check=False
    )
    assert (
        completed.returncode == 2
        and "export --out" in completed.stderr
        and "inside the warehouse folder" in completed.stderr
    )
    assert not (home / "tables").exists()
