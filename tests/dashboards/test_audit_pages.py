"""The demo audit's pages as a reader reads them, in a real browser (studies/audit_demo.toml, `make demo`).

Every audited subject's profile shows each dimension with its interval and verdict, is labelled
demo data, links to existing study and run pages, and links its comparisons; following the link
of version 2 of the demo vectors lands on the comparison, whose planted line reads as the
warehouse holds it. No text node shows a Python literal and the console stays quiet.
"""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import duckdb
import pytest

from biaswh.common.audit_config import load_audit
from biaswh.dashboards.common.format import interval, number
from biaswh.dashboards.common.page_comparisons import comparison_anchor
from biaswh.dashboards.common.page_subjects import subject_file
from tests.conftest import AUDIT_DEMO
from tests.dashboards.conftest import open_page

pytestmark = pytest.mark.dbt
LITERALS = re.compile(r"(?<![\w<])(<NA>|None|nan|NaN|NaT|True|False)(?![\w>])")
_TEXT = "return document.body.innerText"


def _rows(table) -> list[list[str]]:
    return [
        [cell.text.strip() for cell in row.find_elements("css selector", "td")]
        for row in table.find_elements("css selector", "tbody tr")
    ]


def _quiet(browser, page: str) -> list[str]:
    logged = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    text = browser.execute_script(_TEXT)
    return [f"{page}: console {e['message']}" for e in logged] + [
        f"{page}: shows {match}" for match in LITERALS.findall(text)
    ]


def test_every_audited_profile_reads_with_intervals_verdicts_demo_label_and_working_links(browser, audit_site):
    problems = []
    for subject in load_audit(AUDIT_DEMO).subjects:
        page = audit_site / subject_file(subject.subject_id)
        open_page(browser, page)
        assert "Demo data" in browser.find_element("css selector", "h1").find_element("xpath", "..").text
        first_table = browser.find_elements("css selector", "table")[0]
        lines = _rows(first_table)
        assert lines, subject.label
        for _type, dimension, _effect, shown_interval, _p, verdict, data, _links in lines:
            assert shown_interval.startswith("[") and verdict and data == "demo data", (subject.label, dimension)
        for link in first_table.find_elements("css selector", "a"):
            target = Path(unescape(link.get_attribute("href")).removeprefix("file://").split("#")[0])
            assert target.is_file(), (subject.label, target)
        problems += _quiet(browser, page.name)
    assert not problems, "\n".join(problems)


def test_version_twos_profile_links_to_its_comparison_whose_planted_line_reads_as_stored(browser, audit_site):
    audit = load_audit(AUDIT_DEMO)
    first, second = (s for s in audit.subjects if s.name == "demo-vectors")
    with duckdb.connect(str(audit_site.parent / "warehouse.duckdb"), read_only=True) as con:
        stored = con.execute(
            "select difference, ci_low, ci_high, verdict, dimension from analysis.audit_comparisons"
            " where candidate_subject_id = ? and finding = 'demo_user_tests/filler_control'",
            [second.subject_id],
        ).fetchone()
    open_page(browser, audit_site / subject_file(second.subject_id))
    link = browser.find_element("xpath", "//h2[text()='Versions and rivals']/following::table[1]//a")
    assert link.text == "demo-vectors-2 against demo-vectors-1"
    anchor = comparison_anchor(first.subject_id, second.subject_id)
    assert link.get_attribute("href").endswith(f"#{anchor}")
    link.click()
    section = browser.find_element("id", anchor)
    assert section.text == "demo-vectors-2 against demo-vectors-1"
    summary = section.find_element("xpath", "following-sibling::p[1]").text
    assert summary.startswith("versions of one subject: better in 0, worse in 1,")
    assert "Holm over the " in summary and "α = 0.05" in summary
    table = section.find_element("xpath", "following::table[1]")
    planted = [row for row in _rows(table) if "filler_control" in row[1]]
    difference, ci_low, ci_high, verdict, dimension = stored
    assert len(planted) == 1 and planted[0][0] == "word-embedding association (WEAT)"
    assert planted[0][1].startswith(dimension)
    assert planted[0][5:7] == [number(difference), interval(ci_low, ci_high, like=difference)]
    assert planted[0][9] == verdict == "worse"
    assert not _quiet(browser, "comparison page")
