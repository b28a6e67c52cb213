"""Two dialect runs and two pair sets in one warehouse never mix on a page.

Each study has its page (``studies/<study>.html``, its latest run) and each run its own
(``runs/<run id>.html``); ``dialect.html`` lists the studies; within a run each pair set has its
own section whose tables hold only it.
"""

from __future__ import annotations

import re
import shutil

import duckdb
import pytest

from biaswh.pipeline import run_study
from biaswh.warehouse.settings.home import HOME_VARIABLE, warehouse_paths
from tests.conftest import REPOSITORY_ROOT, copy_warehouse

pytestmark = pytest.mark.dbt

SECOND_PAIR_SET = """
[[ingest]]
source = "pairs"
path = "demo_data/dialect_pairs_demo.csv"
name = "dialect_pairs_demo_copy"
variants = { sae = "sae_query", aae = "aave_query" }
squad_split = "demo_train"
cleanup = true
"""


def _study_with_a_second_pair_set(tmp_path, name: str) -> str:
    """studies/demo.toml named ``name``, with a copy of its pair set under another name."""
    text = (REPOSITORY_ROOT / "studies" / "demo.toml").read_text(encoding="utf-8")
    text = text.replace('name = "demo"\n', f'name = "{name}"\n', 1)
    text = text.replace("\n# Retrieval over the demo corpus", SECOND_PAIR_SET + "\n# Retrieval over the demo corpus", 1)
    shutil.copytree(REPOSITORY_ROOT / "studies" / "demo_data", tmp_path / "demo_data", dirs_exist_ok=True)
    path = tmp_path / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def _sections(html: str) -> dict[str, str]:
    return dict(re.findall(r'<section id="pair-set-([^"]+)">(.*?)</section>', html, flags=re.S))


def test_each_run_has_its_page_and_each_pair_set_its_section(demo_warehouse, tmp_path, monkeypatch):
    # the first run is the session's demo study (studies/demo.toml, one pair set), on a copy of its warehouse
    monkeypatch.setenv(HOME_VARIABLE, str(copy_warehouse(demo_warehouse.home, tmp_path / "warehouse")))
    run_study(_study_with_a_second_pair_set(tmp_path, "dialect_second"))
    with duckdb.connect(str(warehouse_paths().duckdb_file), read_only=True) as con:
        (first, second) = [
            r[0]
            for r in con.execute(
                "select run_id from raw.runs where kind = 'study' and status = 'succeeded' order by started_at"
            ).fetchall()
        ]
    site = warehouse_paths().site_dir
    latest = (site / "studies" / "dialect_second.html").read_text(encoding="utf-8")
    earlier = (site / "studies" / "demo.html").read_text(encoding="utf-8")
    run_page = (site / "runs" / f"{first}.html").read_text(encoding="utf-8")
    assert f"Study run <code>{first}</code>" in run_page and second not in run_page

    for html, current, other in ((latest, second, first), (earlier, first, second)):
        assert 'class="run-selector"' in html and "Runs of <a" in html
        assert f"Study run <code>{current}</code>" in html and other not in html
    listing = (site / "dialect.html").read_text(encoding="utf-8")
    assert 'href="studies/demo.html"' in listing and 'href="studies/dialect_second.html"' in listing

    latest_sections, earlier_sections = _sections(latest), _sections(earlier)
    assert set(latest_sections) == {"dialect_pairs_demo", "dialect_pairs_demo_copy"}
    assert set(earlier_sections) == {"dialect_pairs_demo"}
    for pair_set, section in latest_sections.items():
        other = ({"dialect_pairs_demo", "dialect_pairs_demo_copy"} - {pair_set}).pop()
        cells = re.findall(r"<td[^>]*>([^<]*)</td>", section)
        assert pair_set in cells and other not in cells, f"section {pair_set} shows rows of {other}"
