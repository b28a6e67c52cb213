"""The site read in a real browser on copies of the demo warehouse judged under another verdict policy.

On a copy of the session's demo site, four demo studies (dialect features, WEAT, silent bias,
recommendation bias) are judged again with ``[verdicts] alpha = 0.01``, and on another copy with
``adjustment = "bh"``: the three whose verdicts their analysis steps judge through `biaswh
analyze` on their latest run (the product's path for re-judging a run; no ingest, job or build
changes a verdict of theirs), the recommendation study by a whole run (its job adjusts the
p-values, its build compares them with the run's recorded alpha), whose dashboards step writes
the site. Every card's verdict and every study page's verdicts and chart legends then follow the
copy's policy and name it, and no headline contradicts its chart's default markers: the features
the recommendation headline counts are those figure 01 marks, and a rule the dialect-features
headline says costs recall is the one its chart colours significant.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import REPOSITORY_ROOT, copy_warehouse, run_here, run_study_here
from tests.dashboards.conftest import open_page

pytestmark = pytest.mark.dbt
STUDIES = REPOSITORY_ROOT / "studies"
# the configs judged again, by the study each names (its page: studies/<study>.html, its latest run)
RERUN = {
    "demo_rule_variants.toml": "demo_rule_variants",
    "demo_weat.toml": "demo_weat",
    "demo_silent_bias.toml": "demo_silent_bias",
    "demo_recsys.toml": "demo_recsys",
}
# The recommendation study's verdicts are judged in its job and build (compute/recsys/steps.py,
# int_recsys_condition_results.sql): it runs again whole; the others' in their analysis steps.
RUN_WHOLE = "demo_recsys.toml"
# Its feature importances (figure 07, descriptive: no test, p or alpha) do not depend on the verdict
# policy: the copies grow smaller forests (216 trees in all, on this process, not 4,050 on two more).
SMALLER_FORESTS = {"trees = 50 ": "trees = 4 ", "folds = 3 ": "folds = 2 ", "repeats = 3 ": "repeats = 1 "}
POLICIES = {
    "alpha": ("[verdicts]\nalpha = 0.01\n", "α = 0.01", "Holm"),
    "bh": ('[verdicts]\nadjustment = "bh"\n', "α = 0.05", "Benjamini-Hochberg"),
}
_SPECS = """return Array.from(document.querySelectorAll('script[id$="-spec"]')).map(s => s.textContent);"""
_SVG_TEXT = """return Array.from(document.querySelectorAll('svg text')).map(t => t.textContent);"""
_VERDICTS = """return Array.from(document.querySelectorAll('p.verdict')).map(p => p.innerText);"""


def _config(name: str, verdicts: str, folder: Path, replaced: dict[str, str] | None = None) -> Path:
    """A copy of ``studies/<name>`` with the ``[verdicts]`` table, its data paths made absolute (and
    each of ``replaced``'s texts replaced)."""
    text = (STUDIES / name).read_text(encoding="utf-8").replace('"demo_data/', f'"{STUDIES}/demo_data/')
    for old, new in (replaced or {}).items():
        assert old in text, old
        text = text.replace(old, new)
    path = folder / name
    path.write_text(text + "\n" + verdicts, encoding="utf-8")
    return path


@pytest.fixture(scope="module", params=sorted(POLICIES))
def policy_site(request, demo_site, tmp_path_factory):
    """(policy name, the copy's site folder) after the four studies were judged again under that policy."""
    verdicts = POLICIES[request.param][0]
    root = tmp_path_factory.mktemp(f"verdicts-{request.param}")
    home = copy_warehouse(demo_site.parent, root / "warehouse")
    for name in RERUN:
        if name != RUN_WHOLE:  # `biaswh analyze CONFIG`: the study's latest succeeded run, judged again
            run_here("analyze", str(_config(name, verdicts, root)), home=home)
    run_study_here(str(_config(RUN_WHOLE, verdicts, root, SMALLER_FORESTS)), home=home)  # writes the site last
    return request.param, home / "site"


def _rerun_cards(browser, site: Path) -> dict[str, str]:
    open_page(browser, site / "index.html")
    cards = browser.find_elements("css selector", "section.card")
    assert cards
    for card in cards:  # every card names the alpha its verdict was judged at
        assert "α = " in card.find_element("css selector", "p.verdict").text, card.get_attribute("data-study")
    names = set(RERUN.values())
    return {
        c.get_attribute("data-study"): c.find_element("css selector", "p.verdict").text
        for c in cards
        if c.get_attribute("data-study") in names
    }


def test_every_rerun_card_follows_and_names_the_copys_policy(browser, policy_site):
    policy, site = policy_site
    _, alpha, adjustment = POLICIES[policy]
    cards = _rerun_cards(browser, site)
    assert set(cards) == {"demo_rule_variants", "demo_weat", "demo_silent_bias", "demo_recsys"}
    for study, verdict in cards.items():
        assert alpha in verdict, (study, verdict)
        assert "α = 0.05" not in verdict or alpha == "α = 0.05", (study, verdict)
        if study != "demo_silent_bias" or "significant after" in verdict:
            assert adjustment in verdict, (study, verdict)


def test_every_rerun_page_says_the_policy_in_its_verdicts_and_legends(browser, policy_site):
    policy, site = policy_site
    _, alpha, adjustment = POLICIES[policy]
    other = "Holm" if adjustment == "Benjamini-Hochberg" else "Benjamini-Hochberg"
    for study in RERUN.values():
        page = site / "studies" / f"{study}.html"
        open_page(browser, page, charts=True)
        verdicts = browser.execute_script(_VERDICTS)
        assert verdicts, page
        text = " ".join(verdicts)
        assert alpha in text and adjustment in text, (page.name, text)
        assert f"after {other}" not in text and f"{other} p" not in text, (page.name, text)
        level = alpha.split(" = ")[1]
        rules = [t for t in browser.execute_script(_SVG_TEXT) if " p < " in t or "significant after" in t or "α" in t]
        for rule in rules:  # a legend or title that states a rule states this copy's, or the paper's as published
            assert "as published" in rule or alpha in rule or f"p < {level}" in rule, (page.name, rule)


def _specs(browser) -> list[dict]:
    return [json.loads(spec) for spec in browser.execute_script(_SPECS)]


def _rows(spec: dict) -> list[dict]:
    if "datasets" in spec:
        return [row for rows in spec["datasets"].values() for row in rows]
    return spec.get("data", {}).get("values", [])


def test_the_recommendation_headline_counts_the_features_figure_01_marks(browser, policy_site):
    _, site = policy_site
    open_page(browser, site / "studies" / "demo_recsys.html")
    verdict = browser.execute_script(_VERDICTS)[0]
    figure = next(
        spec
        for spec in _specs(browser)
        if "Mean R² per feature" in str(spec.get("title")) and "as published" not in json.dumps(spec)
    )
    marked = {row["feature"] for row in _rows(figure) if row.get("marker")}
    named = re.search(r"(\d+) of (\d+) features shape what gets recommended", verdict)
    if named:
        assert int(named.group(1)) == len(marked) > 0, (verdict, marked)
    else:
        assert verdict.startswith("No evidence that any feature shapes the recommendations"), verdict
        assert marked == set(), marked


def test_the_dialect_features_headline_matches_its_chart(browser, policy_site):
    policy, site = policy_site
    open_page(browser, site / "studies" / "demo_rule_variants.html")
    verdict = browser.execute_script(_VERDICTS)[0]
    charts = [spec for spec in _specs(browser) if "facet" in spec]
    assert charts
    significant = {
        row["rule"]
        for spec in charts
        for row in _rows(spec)
        if row.get("significant") == "yes" and not row.get("is_all_rules") and row.get("delta_pp", 0) > 0
    }
    costs = re.match(r"(\S+) costs recall", verdict)
    if costs:
        assert costs.group(1) in significant, (verdict, significant)
    else:
        assert verdict.startswith("No single rule costs recall significantly"), verdict
    if policy == "alpha":
        # the demo's g_dropping (Holm p 0.0195) is significant at 0.05 and not at 0.01
        assert not costs and "g_dropping" not in significant, verdict
    legend = " ".join(browser.execute_script(_SVG_TEXT))
    assert ("p < 0.01" if policy == "alpha" else "Benjamini-Hochberg p < 0.05") in legend
