"""The site's one format policy on every rendered page, and downloads that hold the stored values.

The policy (docs/formats-and-exports.md) is read off the demo site as a reader reads it: each
page's text, its tables cell by cell and its charts' labels (:mod:`tests.dashboards.site_formats`).
Each table's "Download CSV" holds the warehouse's values exactly, one column per number.
"""

from __future__ import annotations

import csv
import io
import json
import re

import duckdb
import pytest

from tests.dashboards.conftest import open_page
from tests.dashboards.site_formats import page_findings

pytestmark = pytest.mark.dbt
TABLE_DATA = re.compile(r'<script type="application/json" class="table-data">(.*?)</script>', flags=re.S)
# display text a download must not hold in place of a number
DISPLAY_TEXT = re.compile(r"^(< 0\.001|\[.*\]|-?[\d.,]+%|\+\d+\.\d|–)$")


def _pages(site) -> list:
    """Every page of the site: the index, the type pages, each study's page and each run's page."""
    return sorted(path for path in site.rglob("*.html") if "vendor" not in path.parts)


def _downloads(page) -> list[list[dict]]:
    """Each table's download on ``page`` as rows of dicts."""
    return [list(csv.DictReader(io.StringIO(json.loads(found)))) for found in TABLE_DATA.findall(page.read_text())]


@pytest.fixture(scope="module")
def warehouse(demo_site):
    con = duckdb.connect(str(demo_site.parent / "warehouse.duckdb"), read_only=True)
    yield con
    con.close()


def test_the_reader_finds_each_break_of_the_policy(tmp_path):
    spec = {
        "datasets": {"d": [{"rate": 0.123456, "cell_label": "0.5 (3 run(s))"}]},
        "mark": "text",
        "encoding": {
            "text": {"field": "missing", "type": "nominal"},
            "tooltip": [{"field": "rate", "type": "quantitative"}],
        },
    }
    page = tmp_path / "bad.html"
    page.write_text(
        "<p>2 split(s); 1 tests; R_SB undefined; 1400 pairs; p = 0.0312; 12.34567 points</p>"
        "<p>[30%, 90.3%] and 0.903 [0.3, 0.903] and 7.1 [0, 16.7]</p>"
        '<table><tr><th>p<span class="sql">p_value</span></th></tr><tr><td>0.0195</td></tr></table>'
        f'<script type="application/json" id="chart-1-spec">{json.dumps(spec)}</script>'
        "<p>fine: 1,400 pairs, p = 0.031 (smallest possible), 90.0% [30.0%, 95.0%], (Connor 1987), "
        "<code>run 12345678</code>, seed 1234567, 2026-01-12 10:00:00</p>"
    )
    found = "\n".join(page_findings(page))
    for expected in (
        "with (s): 't(s)'",
        "one of a plural noun: '1 tests'",
        "printed as a word: 'undefined'",
        "without separators: '1400'",
        "more than 2 significant digits: 'p = 0.0312'",
        "more than 4 significant digits: '12.34567'",
        "'[30%, 90.3%]'",
        "'0.903 [0.3, 0.903]'",
        "'7.1 [0, 16.7]'",
        "p column 'p_value' shows '0.0195'",
        "reads a field its data lacks: 'missing'",
        "shows 'rate' unformatted",
        "chart label 'cell_label'",
    ):
        assert expected in found, expected
    assert len(page_findings(page)) == 13, found


def test_every_page_of_the_demo_site_keeps_the_format_policy(demo_site):
    pages = _pages(demo_site)
    assert len(pages) >= 20  # the index, the runs and corpus pages, the type pages, each study's and run's page
    problems = [finding for page in pages for finding in page_findings(page)]
    assert not problems, "\n".join(problems[:40])


def test_every_download_holds_stored_values_with_its_run_and_study(demo_site):
    for page in _pages(demo_site):
        per_run = page.parent.name in ("studies", "runs")
        for rows in _downloads(page):
            for row in rows:
                shown = {column: value for column, value in row.items() if DISPLAY_TEXT.match(value or "")}
                assert not shown, (page.name, shown)
                if per_run or page.name == "index.html":
                    assert row["run_id"] and row["study"], (page.name, list(row)[:4])


def test_a_downloaded_csv_parses_to_the_stored_numbers_exactly(browser, demo_site, warehouse):
    open_page(browser, demo_site / "studies" / "demo.html")
    browser.execute_script(  # keep the Blob the button saves (no file dialog in a headless browser)
        """URL.createObjectURL = blob => { window.savedBlob = blob; return document.URL.split('#')[0] + '#saved'; };
        let e = [...document.querySelectorAll('h3')].find(h => h.textContent.startsWith('Paired comparison'));
        while (!e.classList.contains('table-box')) e = e.nextElementSibling;
        e.nextElementSibling.click();"""
    )
    saved = browser.execute_async_script("window.savedBlob.text().then(arguments[arguments.length - 1]);")
    rows = list(csv.DictReader(io.StringIO(saved)))
    assert rows and {"p_exact", "p_adjusted", "ci_low", "ci_high", "run_id", "study"} <= set(rows[0])
    for row in rows:
        stored = warehouse.execute(
            "select p_exact, p_adjusted, ci_low, ci_high, recall_a, delta_pp from analysis.dialect_paired_tests"
            " where run_id = ? and pair_set = ? and retriever = ? and k = ? and is_highlighted_k",
            [row["run_id"], row["pair_set"], row["retriever"], int(row["k"])],
        ).fetchone()
        downloaded = tuple(
            float(row[c]) for c in ("p_exact", "p_adjusted", "ci_low", "ci_high", "recall_a", "delta_pp")
        )
        assert downloaded == stored  # exactly: the shortest repr of a double parses back to it
    study = warehouse.execute("select run_name from marts.dim_runs where run_id = ?", [rows[0]["run_id"]]).fetchone()
    assert rows[0]["study"] == study[0]


def test_no_page_scrolls_sideways_no_chart_leaves_the_text_column_and_no_word_breaks_apart(browser, demo_site):
    for page in _pages(demo_site):
        open_page(browser, page, charts=True)
        found = browser.execute_script(
            """const body = document.body.getBoundingClientRect();
            const wide = [...document.querySelectorAll('div.chart')]
              .filter(c => c.getBoundingClientRect().right > body.right + 1);
            // a one-word cell (an embedding's name, an id) drawn on two or more lines is a word broken apart
            const letters = [...document.querySelectorAll('td')].filter(td => {
              const word = td.textContent.trim(); if (word.length < 4 || /\\s/.test(word)) return false;
              const range = document.createRange(); range.selectNodeContents(td);
              return new Set([...range.getClientRects()].map(line => Math.round(line.top))).size > 1; });
            return [document.documentElement.scrollWidth - document.documentElement.clientWidth, wide.length,
                    letters.map(td => td.textContent.slice(0, 30))];"""
        )
        assert found == [0, 0, []], (str(page), found)
