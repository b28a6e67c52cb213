"""The README's demo, end to end through the real CLI: ingest, dbt build, dashboards."""

import re
from pathlib import Path

import pytest

from tests.conftest import DEMO_STUDY, run_cli

pytestmark = pytest.mark.dbt


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    home = tmp_path_factory.mktemp("demo") / "warehouse"
    completed = run_cli("run", str(DEMO_STUDY), home=home)
    return home, completed


def test_demo_prints_the_dashboard_index_and_the_site_works_offline(demo):
    home, completed = demo
    last_line = completed.stdout.strip().splitlines()[-1]
    assert last_line.startswith("dashboard site: ")
    index = Path(last_line.removeprefix("dashboard site: "))
    assert index == home / "site" / "index.html" and index.exists()
    bundle = index.parent / "vendor" / "vega-bundle.js"
    assert bundle.stat().st_size > 500_000  # Vega, Vega-Lite and vega-embed, written once
    for page in index.parent.glob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert not re.search(r"""<(script|link)[^>]+(src|href)=["']https?:""", html), page.name
        assert 'src="vendor/vega-bundle.js"' in html
        assert "vegaEmbed" not in html or "vega-bundle" in html
    corpus = (index.parent / "corpus.html").read_text(encoding="utf-8")
    assert "dialect_pairs_demo" in corpus and "chart-" in corpus


def test_the_index_leads_with_the_finding(demo):
    home, _ = demo
    html = (home / "site" / "index.html").read_text(encoding="utf-8")
    verdict = re.search(r'<p class="verdict">(.*?)</p>', html).group(1)
    # The demo's 42 pairs show no significant gap after Holm: the card says so, with the
    # interval and the gap the study could have detected, never a direction.
    assert "No evidence of a difference" in verdict and "95% CI" in verdict and "detectable (80% power)" in verdict
    assert 'href="dialect.html"' in html and 'href="runs.html"' in html


def test_runs_page_lists_every_run_with_provenance(demo):
    home, _ = demo
    html = (home / "site" / "runs.html").read_text(encoding="utf-8")
    assert html.count('class="status-succeeded"') == 3  # the study run and its two ingests
    assert 'class="status-running"' not in html
    assert "squad_demo.json" in html and "dialect_pairs_demo.csv" in html
    assert re.search(r"<code>[0-9a-f]{64}</code>", html)


def test_rerunning_the_demo_adds_no_duplicates(demo):
    home, _ = demo
    before = run_cli("sql", "select count(*) from raw.query_pair_variants", "--csv", home=home).stdout
    again = run_cli("run", str(DEMO_STUDY), home=home)
    assert "unchanged" in again.stdout
    assert run_cli("sql", "select count(*) from raw.query_pair_variants", "--csv", home=home).stdout == before
