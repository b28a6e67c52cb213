"""Every page of the demo site, rendered in a real browser (headless Chromium through chromedriver).

A page fails on a JavaScript error or a console warning (Vega warns of an empty or infinite
scale there), a chart that did not draw, a table wider than the page, or any request to a
remote URL. A screenshot of each page is kept in `test-artifacts/`.
`make test` installs Debian's chromium and chromium-driver when they are missing.
"""

from __future__ import annotations

import time

import pytest

from tests.conftest import REPOSITORY_ROOT
from tests.dashboards.conftest import open_page

pytestmark = pytest.mark.dbt
ARTIFACTS = REPOSITORY_ROOT / "test-artifacts" / "screenshots"


_CHARTS_DRAWN = """return Array.from(document.querySelectorAll('div[id^="chart-"]'))
    .filter(d => !d.id.endsWith('-spec'))
    .map(d => [d.id, d.querySelectorAll('svg, canvas').length > 0 && d.getBoundingClientRect().height > 20]);"""
_WIDE_TABLES = """return Array.from(document.querySelectorAll('table'))
    .filter(t => t.closest('.table-box') === null && t.getBoundingClientRect().right > window.innerWidth + 1)
    .length + (document.documentElement.scrollWidth > window.innerWidth + 1 ? 1 : 0);"""
_REMOTE = """return performance.getEntriesByType('resource').map(e => e.name)
    .filter(n => /^(https?|wss?):/.test(n));"""


def test_every_demo_page_renders_without_errors(browser, demo_site):
    pages = sorted(demo_site.glob("*.html")) + sorted(demo_site.glob("studies/*.html"))
    assert {p.relative_to(demo_site).as_posix() for p in pages} >= {
        "studies/demo.html",
        "studies/demo_weat.html",
        "index.html",
        "runs.html",
        "dialect.html",
        "evaluation.html",
        "weat.html",
        "silent_bias.html",
        "recsys.html",
        "corpus.html",
    }
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    problems = []
    for page in pages:
        open_page(browser, page)
        deadline = time.monotonic() + 30
        while True:
            charts = browser.execute_script(_CHARTS_DRAWN)
            if all(drawn for _, drawn in charts) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        problems += [
            f"{page.relative_to(demo_site)}: chart {chart_id} did not draw" for chart_id, drawn in charts if not drawn
        ]
        logged = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
        problems += [f"{page.name}: console {e['level'].lower()} {e['message']}" for e in logged]
        if browser.execute_script(_WIDE_TABLES):
            problems.append(f"{page.name}: wider than the window (a table outside its scrolling box)")
        problems += [f"{page.name}: remote request {url}" for url in browser.execute_script(_REMOTE)]
        height = browser.execute_script("return document.documentElement.scrollHeight")
        browser.set_window_size(1400, min(max(height, 1000), 16000))
        browser.save_screenshot(str(ARTIFACTS / f"{page.relative_to(demo_site).as_posix().replace('/', '-')}.png"))
        browser.set_window_size(1400, 1000)
    assert not problems, "\n".join(problems)


def test_the_index_reads_as_findings_in_the_browser(browser, demo_site):
    open_page(browser, demo_site / "index.html")
    types = [h.text for h in browser.find_elements("css selector", "section.study-type > h2")]
    assert types == [
        "Dialect retrieval bias",
        "Dialect features (one rule at a time)",
        "Retrieval evaluation and drift",
        "Word-embedding association (WEAT)",
        "Silent bias of chain-of-thought answers",
        "LLM recommendation bias",
    ]
    cards = browser.find_elements("css selector", "section.card")
    for card in cards:
        verdict = card.find_element("css selector", "p.verdict")
        assert verdict.is_displayed() and len(verdict.text) > 40
    # The first card's finding is on the first screen, without scrolling.
    assert cards[0].find_element("css selector", "p.verdict").rect["y"] < 1000
