"""One "runs to show" rule: the index card, the page's run selector and the runs page name the same runs.

A copy of the session's demo warehouse gets a second study of the dialect type and a failed
run of the first study, each holding a copy of the demo run's rows in every run-keyed table
(so a failed run's rows exist and only its status keeps it off the site).
"""

from __future__ import annotations

import re

import duckdb
import pytest

from dashboards.common import site
from tests.conftest import copy_warehouse
from warehouse.runs import start_run

pytestmark = pytest.mark.dbt


def _copy_run_rows(con, source: str, target: str) -> None:
    """Copy run ``source``'s rows of every run-keyed mart and analysis table under run id ``target``."""
    tables = con.execute(
        "select c.table_schema || '.' || c.table_name from information_schema.columns c"
        " join information_schema.tables t using (table_schema, table_name)"
        " where c.table_schema in ('marts', 'analysis') and t.table_type = 'BASE TABLE' and c.column_name = 'run_id'"
    ).fetchall()
    for (table,) in tables:
        copied = f"select * replace (? as run_id) from {table} where run_id = ?"
        con.execute(f"insert into {table} {copied}", [target, source])


@pytest.fixture(scope="module")
def two_studies_and_a_failed_run(demo_warehouse, tmp_path_factory):
    home = copy_warehouse(demo_warehouse.home, tmp_path_factory.mktemp("runs-agree") / "warehouse")
    con = duckdb.connect(str(home / "warehouse.duckdb"))
    (demo,) = con.execute("select run_id from raw.runs where kind = 'study' and status = 'succeeded'").fetchone()
    second = start_run(con, kind="study", name="demo_second_study", parameters={})
    _copy_run_rows(con, demo, second.run_id)
    second.finish()
    failed = start_run(con, kind="study", name="demo", parameters={})
    _copy_run_rows(con, demo, failed.run_id)
    failed.fail("a data test failed")
    out = site.build_site(con, home / "site")
    yield con, out, {"demo": demo, "second": second.run_id, "failed": failed.run_id}
    con.close()


def test_the_card_the_selector_and_the_runs_page_show_the_same_runs(two_studies_and_a_failed_run):
    con, out, runs = two_studies_and_a_failed_run
    shown = [run_id for run_id, _ in site.RUN_LISTS["dialect.html"](con)]
    assert shown == [runs["second"], runs["demo"]]  # succeeded only, newest first

    # the index: one card per study, each from that study's latest succeeded run, linking to its copy
    index = (out / "index.html").read_text(encoding="utf-8")
    cards = re.findall(r'data-study="([^"]+)" data-run="([^"]+)"><h3><a href="([^"]+)"', index)
    dialect_cards = {s: (r, href) for s, r, href in cards if re.fullmatch(r"dialect(-[0-9a-f]{12})?\.html", href)}
    assert dialect_cards == {
        "demo_second_study": (runs["second"], "dialect.html"),
        "demo": (runs["demo"], f"dialect-{runs['demo'][:12]}.html"),
    }
    demo_card = index[index.index('data-study="demo"') :].split("</section>")[0]
    assert "earlier run" not in demo_card  # the failed run is not counted as an earlier run of demo

    # the page's selector: the same two runs, grouped by study, each linked to its own copy
    for file_name, current in (("dialect.html", runs["second"]), (f"dialect-{runs['demo'][:12]}.html", runs["demo"])):
        page = (out / file_name).read_text(encoding="utf-8")
        selector = re.search(r'<nav class="run-selector".*?</nav>', page, flags=re.S).group(0)
        assert re.findall(r"<div><b>([^<]+)</b>", selector) == ["demo_second_study", "demo"]
        assert runs["failed"][:12] not in page and f"Study run <code>{current}</code>" in page
    assert not list(out.glob(f"*{runs['failed'][:12]}*"))

    # the runs page: every run listed, the failed one without a page, the others linked as the cards link
    runs_page = (out / "runs.html").read_text(encoding="utf-8")
    rows = {
        name: re.search(r'title="' + run_id + r'">.*?</tr>', runs_page, flags=re.S).group(0)
        for name, run_id in runs.items()
    }
    assert "failed" in rows["failed"] and "Dialect retrieval bias" not in rows["failed"]
    assert 'href="dialect.html">Dialect retrieval bias</a>' in rows["second"]
    assert f'href="dialect-{runs["demo"][:12]}.html">Dialect retrieval bias</a>' in rows["demo"]
