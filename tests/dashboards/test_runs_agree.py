"""One "runs to show" rule: the index card, the study's page, the type page and the runs page name the same runs.

A copy of the session's demo warehouse gets, after the demo run, a second demo study of the
dialect type, a study on real data whose name a user chose badly, and a failed run of the first
study, each holding a copy of the demo run's rows in every run-keyed table (so a failed run's
rows exist and only its status keeps it off the site). Every study keeps its own address.
"""

from __future__ import annotations

import re

import duckdb
import pytest

from biaswh.dashboards.common import site
from biaswh.dashboards.common.addresses import study_file
from biaswh.pipeline import load_plugins
from biaswh.warehouse.runs.registry import start_run
from tests.conftest import copy_warehouse

pytestmark = pytest.mark.dbt
HOSTILE = '../../<script>alert("x")</script> Real'


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
    real = start_run(con, kind="study", name=HOSTILE, parameters={"data": "real"})
    _copy_run_rows(con, demo, real.run_id)
    real.finish()
    failed = start_run(con, kind="study", name="demo", parameters={})
    _copy_run_rows(con, demo, failed.run_id)
    failed.fail("a data test failed")
    load_plugins()  # every study page registers, as `biaswh dashboards` does
    out = site.build_site(con, home / "site")
    yield con, out, {"demo": demo, "second": second.run_id, "real": real.run_id, "failed": failed.run_id}
    con.close()


def test_the_card_the_selector_and_the_runs_page_show_the_same_runs(two_studies_and_a_failed_run):
    con, out, runs = two_studies_and_a_failed_run
    shown = [run_id for run_id, _ in site.RUN_LISTS["dialect.html"](con)]
    assert shown == [runs["real"], runs["second"], runs["demo"]]  # succeeded only, newest first

    # the index: one card per study from its latest succeeded run, real data first, linking to its study page
    index = (out / "index.html").read_text(encoding="utf-8")
    cards = re.findall(r'data-study="([^"]+)" data-run="([^"]+)" data-kind="([^"]+)"><h3>.*?<a href="([^"]+)"', index)
    dialect_cards = [(r, kind, href) for _, r, kind, href in cards if r in runs.values()]
    assert dialect_cards == [
        (runs["real"], "real", study_file(HOSTILE)),
        (runs["second"], "demo", "studies/demo_second_study.html"),
        (runs["demo"], "demo", "studies/demo.html"),
    ]
    demo_card = index[index.index('data-study="demo"') :].split("</section>")[0]
    assert "earlier run" not in demo_card  # the failed run is not counted as an earlier run of demo
    assert '<span class="badge badge-demo">Demo data</span> <a href="studies/demo.html">' in demo_card
    glance = index[index.index('<section class="glance">') :].split("</section>")[0]
    assert glance.index("Research data") < glance.index("Demo data")

    # each study's page shows its own latest run, however many studies of its type ran after it
    for study, current in (("demo_second_study", "second"), ("demo", "demo")):
        page = (out / "studies" / f"{study}.html").read_text(encoding="utf-8")
        assert f"Study run <code>{runs[current]}</code>" in page and "<title>Demo data: " in page
        assert not [r for name, r in runs.items() if name != current and r[:12] in page]
        assert f"Study run <code>{runs[current]}</code>" in (out / "runs" / f"{runs[current]}.html").read_text()
    assert not list(out.rglob(f"*{runs['failed'][:12]}*"))

    # a user's study name never leaves the site's folder and is escaped wherever it is shown
    (real_page,) = [p for p in (out / "studies").glob("*.html") if runs["real"] in p.read_text(encoding="utf-8")]
    assert real_page.relative_to(out).as_posix() == study_file(HOSTILE)
    assert re.fullmatch(r"script-alert-x-script-real-[0-9a-f]{8}\.html", real_page.name)
    assert "<script>alert" not in "".join(p.read_text(encoding="utf-8") for p in out.rglob("*.html"))
    assert "badge" not in real_page.read_text(encoding="utf-8").split("<h1>")[1].split("</h1>")[0]

    # the type page lists the studies, real data first, each linked to its page and its runs
    listing = (out / "dialect.html").read_text(encoding="utf-8")
    assert re.findall(r'<li data-study="([^"]+)">', listing) == [
        "../../&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; Real",
        "demo_second_study",
        "demo",
    ]
    assert 'href="studies/demo.html"' in listing and f'href="runs/{runs["demo"]}.html"' in listing

    # the runs page: every run listed, the failed one without a page, the others linked to their run page
    runs_page = (out / "runs.html").read_text(encoding="utf-8")
    rows = {
        name: re.search(r'title="' + run_id + r'">.*?</tr>', runs_page, flags=re.S).group(0)
        for name, run_id in runs.items()
    }
    assert "failed" in rows["failed"] and "Dialect retrieval bias" not in rows["failed"]
    for name in ("second", "demo", "real"):
        assert f'href="runs/{runs[name]}.html">Dialect retrieval bias</a>' in rows[name]
