"""The demo site as a reader reads it, in a real browser: what the text says equals the warehouse.

Every demo study has a card; the numbers on the index and on one page per study type are the
warehouse's values in the house format; no text node shows a Python or pandas literal; every
table downloads as CSV and every chart offers SVG and PNG. Reuses the session's demo site.
"""

from __future__ import annotations

import re
import tomllib

import duckdb
import pytest

from biaswh.dashboards.common.format import percent
from tests.conftest import REPOSITORY_ROOT
from tests.dashboards.conftest import open_page

pytestmark = pytest.mark.dbt
DEMO_STUDIES = {
    tomllib.loads(path.read_text(encoding="utf-8"))["study"]["name"]
    for path in (REPOSITORY_ROOT / "studies").glob("demo*.toml")
}
LITERALS = re.compile(r"(?<![\w<])(<NA>|None|nan|NaN|NaT|True|False)(?![\w>])")
_TEXT_NODES = """const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {acceptNode: n =>
    ['SCRIPT', 'STYLE'].includes(n.parentElement.tagName) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
const found = []; while (walker.nextNode()) { found.push(walker.currentNode.textContent); } return found;"""


@pytest.fixture(scope="module")
def warehouse(demo_site):
    con = duckdb.connect(str(demo_site.parent / "warehouse.duckdb"), read_only=True)
    yield con
    con.close()


def _follow(browser, card) -> None:
    """Click the card's study link and wait until its page is the one loaded (a click navigates later)."""
    from selenium.webdriver.support.ui import WebDriverWait  # as the browser fixture: only with selenium

    href = card.find_element("css selector", "h3 a").get_attribute("href")
    card.find_element("css selector", "h3 a").click()
    WebDriverWait(browser, 20).until(
        lambda b: b.current_url == href and b.execute_script("return document.readyState") == "complete"
    )


def _cards(browser) -> dict[str, object]:
    return {c.get_attribute("data-study"): c for c in browser.find_elements("css selector", "section.card")}


def test_every_demo_study_has_a_card_that_opens_its_latest_run(browser, demo_site, warehouse):
    open_page(browser, demo_site / "index.html")
    cards = _cards(browser)
    assert set(cards) == DEMO_STUDIES
    for study, card in cards.items():
        latest = warehouse.execute(
            "select arg_max(run_id, started_at) from marts.dim_runs"
            " where run_name = ? and run_kind = 'study' and run_status = 'succeeded'",
            [study],
        ).fetchone()[0]
        assert card.get_attribute("data-run") == latest, study
        href = card.find_element("css selector", "h3 a").get_attribute("href")
        assert href == (demo_site / "studies" / f"{study}.html").as_uri(), study  # the study's own address
        page = (demo_site / "studies" / f"{study}.html").read_text(encoding="utf-8")
        # the linked page shows that run: it is the selector's current entry
        assert "<b>run of " in page and f"<code>{latest[:12]}</code></b> (shown)" in page, study
    # the demo evaluation series is one click from the index, and its page says it is demo data
    _follow(browser, cards["demo_evaluation"])
    assert "index_missing_10pct" in browser.find_element("tag name", "body").text
    assert browser.find_element("css selector", "h1 .badge").text == "Demo data"
    assert browser.title.startswith("Demo data: demo_evaluation")
    # the nav link of its type lists every study of the type, each linking to its own page
    browser.find_element("link text", "Retrieval evaluation and drift").click()
    listed = {a.text: a.get_attribute("href") for a in browser.find_elements("css selector", ".study-list li > a")}
    assert listed["demo_external_runs"] == (demo_site / "studies" / "demo_external_runs.html").as_uri()


def test_index_numbers_equal_the_warehouse(browser, demo_site, warehouse):
    open_page(browser, demo_site / "index.html")
    cards = _cards(browser)
    for study in ("demo_evaluation", "demo_external_runs"):
        run_id = cards[study].get_attribute("data-run")
        # a breach with no query paired with the baseline is not testable, and not counted; latency
        # (the machine's, a family of its own) is told apart, after the headline
        significant, total = warehouse.execute(
            "select count(*) filter (where is_significant), count(*) from analysis.evaluation_alerts"
            " where series_run_id = ? and coalesce(status, '') <> 'not testable' and not depends_on_machine",
            [run_id],
        ).fetchone()
        verdict = cards[study].find_element("css selector", "p.verdict").text
        expected = (
            f"{significant} of {total} threshold breaches are significant"
            if significant
            else f"{total} threshold breach{'es' if total != 1 else ''}, none significant"
        )
        assert expected in verdict, verdict
    run_id = cards["demo"].get_attribute("data-run")
    k, recall_a, recall_b = warehouse.execute(
        "select k, recall_a, recall_b from analysis.dialect_paired_tests where run_id = ? and retriever = 'bm25'"
        " and is_highlighted_k order by k limit 1",
        [run_id],
    ).fetchone()
    row = [r for r in cards["demo"].find_elements("css selector", "tbody tr") if r.text.startswith("bm25 ")][0]
    assert row.text.split()[1:3] == [percent(recall_a), percent(recall_b)]


def test_the_dialect_features_demo_shows_a_rule_costing_recall(browser, demo_site, warehouse):
    open_page(browser, demo_site / "studies" / "demo_rule_variants.html", charts=True)
    delta, recall_a, recall_b, p_holm, n_pairs = warehouse.execute(
        "select delta_pp, recall_a, recall_b, p_holm, n_pairs from analysis.dialect_feature_effects"
        " e join marts.dim_runs r using (run_id) where rule = 'g_dropping' and k = 1"
        " order by r.started_at desc limit 1"
    ).fetchone()
    assert delta > 0 and p_holm < 0.05  # the demo data teaches what the page shows on real data
    verdict = browser.find_element("css selector", "p.verdict").text
    assert verdict.startswith("g_dropping costs recall") and percent(recall_b) in verdict
    first_table = browser.find_element("css selector", "table.features")
    row = [r for r in first_table.find_elements("css selector", "tbody tr") if r.text.startswith("g_dropping")][0]
    cells = [c.text for c in row.find_elements("tag name", "td")]
    assert cells[2:5] == [str(n_pairs), percent(recall_a), percent(recall_b)]
    assert "Provenance" in browser.find_element("tag name", "body").text


def test_the_external_runs_page_compares_systems_and_draws_metrics_for_each(browser, demo_site):
    open_page(browser, demo_site / "index.html")
    _follow(browser, _cards(browser)["demo_external_runs"])
    body = browser.find_element("tag name", "body").text
    assert "ours:bm25" in body
    assert "Dense vs BM25 overlap" not in body  # no run of this series has both over one corpus
    table = browser.find_element("xpath", "//h2[starts-with(., 'Metrics at k')]/following::table[1]")
    shown = {r.find_element("tag name", "td").text for r in table.find_elements("css selector", "tbody tr")}
    assert {s for s in shown if s.startswith("ours:")} == {"ours:bm25"} and any(s.startswith("prod") for s in shown)


def test_no_text_node_shows_a_python_literal(browser, demo_site):
    problems = []
    for page in sorted(demo_site.glob("*.html")) + sorted(demo_site.glob("studies/*.html")):
        open_page(browser, page, charts=True)
        for node in browser.execute_script(_TEXT_NODES):
            if LITERALS.search(node):
                problems.append(f"{page.name}: {node.strip()[:80]!r}")
    assert not problems, "\n".join(problems[:40])


def test_every_table_downloads_as_csv_and_every_chart_saves_as_svg_and_png(browser, demo_site):
    for page in sorted(demo_site.glob("*.html")) + sorted(demo_site.glob("studies/*.html")):
        open_page(browser, page, charts=True)
        tables = browser.find_elements("css selector", ".table-box table")
        buttons = browser.find_elements("css selector", "button.csv")
        assert len(buttons) == len(tables), page.name
        for chart in browser.find_elements("css selector", "div.chart"):
            actions = chart.find_elements("css selector", ".vega-actions a")
            labels = {a.get_attribute("textContent") for a in actions}
            assert labels == {"Save as SVG", "Save as PNG"}, (page.name, labels)
    # one download, read back: the CSV holds the run, the study and the table's stored columns
    open_page(browser, demo_site / "studies" / "demo_rule_variants.html")
    browser.execute_script(  # keep the Blob the button saves (no file dialog in a headless browser)
        """URL.createObjectURL = blob => { window.savedBlob = blob; return document.URL.split('#')[0] + '#saved'; };
        document.querySelector('table.features').closest('.table-box').nextElementSibling.click();"""
    )
    csv = browser.execute_async_script("window.savedBlob.text().then(arguments[arguments.length - 1]);")
    lines = csv.strip().split("\r\n")
    header = lines[0].split(",")
    assert header[:2] == ["run_id", "study"] and {"rule", "n_pairs", "recall_a", "ci_low", "p_holm"} <= set(header)
    assert len(lines) == 1 + len(
        browser.find_elements("css selector", "table.features")[0].find_elements("css selector", "tbody tr")
    )
