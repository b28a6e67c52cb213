"""The README's demo, end to end: ingest, dbt build, dashboards.

The first run is the session's :func:`demo_warehouse` (the demo study in this process); the
rerun goes through the `biaswh` command's own entry point, on a copy of that warehouse.
"""

import re
import shutil
from pathlib import Path

import duckdb
import pytest

from biaswh.ingest.common.embedding_cache import CACHE_VARIABLE
from biaswh.warehouse.settings.home import HOME_VARIABLE
from tests.conftest import DEMO_STUDY, assert_refused, copy_warehouse, run_main

pytestmark = pytest.mark.dbt


@pytest.fixture(scope="module")
def demo(demo_warehouse):
    return demo_warehouse.home, demo_warehouse.stdout, demo_warehouse.embedding_cache


def test_demo_writes_the_dashboard_index_and_the_site_works_offline(demo):
    home, printed, _ = demo
    assert "[demo] next: open the dashboard site below" in printed
    index = home / "site" / "index.html"
    assert index.exists()
    bundle = index.parent / "vendor" / "vega-bundle.js"
    assert bundle.stat().st_size > 500_000  # Vega, Vega-Lite and vega-embed, written once
    for page in index.parent.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert not re.search(r"""<(script|link)[^>]+(src|href)=["']https?:""", html), page.name
        assert 'src="vendor/vega-bundle.js"' in html
        # a page in a folder reads its links from the site's top
        assert ('<base href="../">' in html) == (page.parent != index.parent), page.name
        assert "vegaEmbed" not in html or "vega-bundle" in html
    corpus = (index.parent / "corpus.html").read_text(encoding="utf-8")
    assert "dialect_pairs_demo" in corpus and "chart-" in corpus


def test_the_index_leads_with_the_finding(demo):
    home, *_ = demo
    html = (home / "site" / "index.html").read_text(encoding="utf-8")
    verdict = re.search(r'<p class="verdict">(.*?)</p>', html).group(1)
    # The demo's 42 pairs show no significant gap after Holm: the card says so, with the
    # interval and the gap the study could have detected, never a direction.
    assert "No evidence of a difference" in verdict and "95% CI" in verdict
    assert "detectable with 80% power at α = 0.05" in verdict
    assert 'href="studies/demo.html"' in html and 'href="dialect.html"' in html and 'href="runs.html"' in html


def test_runs_page_lists_every_run_with_provenance(demo):
    home, *_ = demo
    html = (home / "site" / "runs.html").read_text(encoding="utf-8")
    assert html.count('class="status-succeeded"') == 3  # the study run and its two ingests
    assert 'class="status-running"' not in html
    assert "squad_demo.json" in html and "dialect_pairs_demo.csv" in html
    assert re.search(r"<code>[0-9a-f]{64}</code>", html)


def test_rerunning_the_demo_through_the_command_adds_no_duplicates(demo, tmp_path, monkeypatch, capsys):
    home = copy_warehouse(demo[0], tmp_path / "warehouse")
    monkeypatch.setenv(HOME_VARIABLE, str(home))
    # A rerun on the same machine reads the vectors the first run embedded (re-embedding the texts
    # in other batches moves dense scores in the 7th digit, which the comparison rightly reports).
    cache = shutil.copytree(demo[2], tmp_path / "embeddings")
    monkeypatch.setenv(CACHE_VARIABLE, str(cache))
    count = ["sql", "select count(*) from raw.query_pair_variants", "--csv"]
    code, before, _ = run_main(count, capsys)
    assert code == 0 and before.splitlines()[1].isdigit()
    code, again, error = run_main(["run", str(DEMO_STUDY)], capsys)
    assert code == 0, error
    assert "unchanged" in again
    # The command's last line names the site's index page, written by the rerun.
    index = Path(again.strip().splitlines()[-1].removeprefix("dashboard site: "))
    assert again.strip().splitlines()[-1].startswith("dashboard site: ")
    assert index == home / "site" / "index.html" and index.exists()
    assert run_main(count, capsys)[1] == before

    # the two runs of one config: identical on every stored row, and the study's page says so (a
    # first run reused from an earlier build of the code differs in its code version only)
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as reader:
        query = "select run_id, code_version from raw.runs where kind = 'study' order by started_at"
        (first, version_a), (second, version_b) = reader.execute(query).fetchall()
    code, out, error = run_main(["diff", first, second[:12]], capsys)
    page = (home / "site" / "studies" / "demo.html").read_text(encoding="utf-8")
    earlier = f'the earlier run <a href="runs/{first}.html"><code>{first[:12]}</code></a>'
    if version_a == version_b:
        assert (code, out, error) == (0, "identical\n", "")
        assert f"Identical to {earlier}: the same config, inputs and code" in page
    else:
        assert (code, out, error) == (0, f"code: code version {version_a[:12]} vs {version_b[:12]}\n", "")
        assert f"Changed since {earlier} (A: that run, B: this one). Its results are the same" in page
    assert f"Study run <code>{second}</code>" in page
    code, _, error = run_main(["diff", first, "no-such-run"], capsys)
    assert_refused(code, error, ["'no-such-run'", "no run"])
