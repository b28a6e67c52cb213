"""The Python API (``import biaswh``) on the demo warehouse: frames, sandboxed SQL, charts, findings, runs."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import sys

import altair as alt
import polars as pl
import pytest

import biaswh
from biaswh.warehouse.errors import UserError
from tests.conftest import DEMO_STUDY, REPOSITORY_ROOT

pytestmark = pytest.mark.dbt

HEAVY = {"polars", "pyarrow", "openai", "torch", "duckdb", "altair"}
DEMO_STUDIES = sorted(p.stem for p in (REPOSITORY_ROOT / "studies").glob("demo*.toml"))


@pytest.fixture(scope="module")
def demo_home(demo_site):
    """The shared demo warehouse folder (every studies/demo*.toml); read, never changed."""
    return demo_site.parent


@pytest.fixture
def demo_copy(demo_home, tmp_path):
    """A private copy of the demo warehouse (DuckDB file, LanceDB vectors, dbt state), free to change."""
    home = tmp_path / "warehouse"
    shutil.copytree(demo_home, home, ignore=shutil.ignore_patterns("site", "*.lock"))
    return home


def test_import_is_light_and_open_is_read_only_by_default(demo_home):
    loaded = subprocess.run(
        [sys.executable, "-c", f"import sys, biaswh; print(sorted({HEAVY!r} & set(sys.modules)))"],
        capture_output=True,
        text=True,
        cwd=REPOSITORY_ROOT,
        check=True,
    )
    assert loaded.stdout.strip() == "[]"
    with biaswh.open(demo_home) as wh:
        assert wh.read_only and wh.home == demo_home.resolve()
        with pytest.raises(UserError, match=r"opened read-only: biaswh.open\(read_only=False\)"):
            wh.run(DEMO_STUDY)
    with pytest.raises(UserError, match="is closed"):
        wh.runs()
    with pytest.raises(UserError, match="no warehouse at"):
        biaswh.open(demo_home / "missing")


def test_runs_studies_and_latest_run_of_the_demo_warehouse(demo_home):
    wh = biaswh.open(demo_home)
    runs = wh.runs()
    studies = runs.filter(pl.col("run_kind") == "study")
    assert sorted(studies["run_name"]) == DEMO_STUDIES
    assert set(studies["run_status"]) == {"succeeded"}
    assert runs["started_at"].is_sorted(descending=True)
    summary = wh.studies()
    assert sorted(summary["study"]) == DEMO_STUDIES
    assert summary["n_runs"].to_list() == [1] * len(DEMO_STUDIES)
    demo = summary.row(by_predicate=pl.col("study") == "demo", named=True)
    assert demo["latest_succeeded_run_id"] == demo["latest_run_id"] == wh.latest_run("demo")
    assert wh.latest_run("no_such_study") is None
    assert summary.to_pandas().shape == summary.shape


def test_findings_are_the_index_cards_with_their_runs(demo_home):
    wh = biaswh.open(demo_home)
    findings = wh.findings()
    index = (demo_home / "site" / "index.html").read_text(encoding="utf-8")
    site_verdicts = {_plain(v) for v in re.findall(r'<p class="verdict">(.*?)</p>', index, flags=re.S)}
    assert sorted(findings["study"].to_list()) == DEMO_STUDIES  # a finding per study, as the index's cards
    assert findings["page"].to_list() == [
        "dialect",
        "dialect_features",
        "evaluation",
        "evaluation",
        "evaluation",  # the evaluation, external-runs and monitoring demos
        "weat",
        "silent_bias",
        "recsys",
    ]
    for row in findings.iter_rows(named=True):
        assert row["study"] in DEMO_STUDIES and row["run_id"] == wh.latest_run(row["study"])
        assert row["verdict"] in site_verdicts  # the site's own sentence, as plain text
        assert row["data"] == "demo"  # every demo config says so
    weat = wh.findings("weat")
    assert weat.frame.height == 1 and weat["study"][0] == "demo_weat"
    assert "<section" in weat._repr_html_() and 'class="verdict"' in weat._repr_html_()
    assert '<span class="badge badge-demo">Demo data</span>' in weat._repr_html_()
    with pytest.raises(UserError, match="no finding for study 'nope'; findings exist for .*demo_weat"):
        wh.findings("nope")


def _plain(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def test_findings_html_escapes_a_hostile_study_name(demo_copy):
    import duckdb

    hostile = "<script>alert('x')</script>&co"
    con = duckdb.connect(str(demo_copy / "warehouse.duckdb"))
    con.execute("update raw.runs set name = ? where kind = 'study' and name = 'demo_weat'", [hostile])
    con.close()
    findings = biaswh.open(demo_copy).findings(hostile)
    assert findings["study"].to_list() == [hostile]
    shown = findings._repr_html_()
    assert "<script>" not in shown and "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;&amp;co" in shown


def test_sql_runs_in_the_sandbox(demo_home):
    wh = biaswh.open(demo_home)
    tests = wh.sql("select retriever, k, delta_pp from dialect_paired_tests where is_highlighted_k order by k")
    assert tests.columns == ["retriever", "k", "delta_pp"] and tests.height > 0
    assert tests["k"].is_sorted()
    before = (demo_home / "warehouse.duckdb").stat().st_mtime_ns
    with pytest.raises(UserError, match="SQL error: .*read-only"):
        wh.sql("delete from raw.runs")
    with pytest.raises(UserError, match="COPY is not allowed"):
        wh.sql(f"copy (select 1) to '{demo_home / 'leak.csv'}'")
    with pytest.raises(UserError, match="query is empty"):
        wh.sql("  ;")
    assert not (demo_home / "leak.csv").exists()
    assert (demo_home / "warehouse.duckdb").stat().st_mtime_ns == before
    assert wh.runs().filter(pl.col("run_kind") == "study").height == len(DEMO_STUDIES)


def test_charts_are_the_pages_altair_charts(demo_home):
    wh = biaswh.open(demo_home)
    charts = wh.charts("dialect")
    assert "Recall@k by variant" in charts and "Rank of the gold document" in charts
    for chart in charts.values():
        assert isinstance(chart, alt.TopLevelMixin)
        spec = chart.to_dict(validate=True)
        assert spec["$schema"].startswith("https://vega.github.io/schema/vega-lite/")
    # per-run pages draw the run asked for, by id or its 12-character prefix
    demo_run = wh.latest_run("demo")
    assert set(wh.charts("dialect.html", run_id=demo_run[:12])) >= {"Recall@k by variant"}
    assert wh.charts("weat") and all(isinstance(c, alt.TopLevelMixin) for c in wh.charts("weat").values())
    with pytest.raises(UserError, match="no page 'nope'; pages: .*dialect"):
        wh.charts("nope")
    with pytest.raises(UserError, match="run_id 'ffff' names 0 of the dialect page's runs"):
        wh.charts("dialect", run_id="ffff")


def test_run_then_query_with_a_reader_open_in_the_same_process(demo_copy):
    reader = biaswh.open(demo_copy)
    before = reader.runs().height
    assert reader.latest_run("demo_silent_bias") is not None
    writer = biaswh.open(demo_copy, read_only=False)
    run_id = writer.run(REPOSITORY_ROOT / "studies" / "demo_silent_bias.toml", dashboards=False)  # no page read here
    # the reader sees the new run at once: no connection was held across the run
    assert reader.latest_run("demo_silent_bias") == run_id
    runs = reader.runs()
    assert runs.height > before
    assert runs.row(by_predicate=pl.col("run_id") == run_id, named=True)["run_status"] == "succeeded"
    finding = reader.findings("silent_bias")
    assert finding["run_id"].to_list() == [run_id]


def test_run_takes_the_compute_engine_like_the_command_line(tmp_path):
    """The options reach the pipeline's check before anything runs (a Ray run: tests/compute/test_ray_parity.py)."""
    writer = biaswh.open(tmp_path / "warehouse", read_only=False)
    study = REPOSITORY_ROOT / "studies" / "demo.toml"
    with pytest.raises(biaswh.BadInput, match=r"run: compute must be one of 'local', 'ray' or None, got 'spark'"):
        writer.run(study, compute="spark")
    with pytest.raises(UserError, match=r"--compute/--ray-address address: 'auto' needs engine = \"ray\""):
        writer.run(study, compute="local", ray_address="auto")
    assert not (tmp_path / "warehouse" / "warehouse.duckdb").exists()


def test_sql_reads_no_file_outside_the_warehouse_tables(demo_home, tmp_path):
    """Through the API as through ``biaswh sql``: a file elsewhere, or the warehouse's own bytes, is refused."""
    secret = tmp_path / "secret.csv"
    secret.write_text("token\nhunter2\n", encoding="utf-8")
    wh = biaswh.open(demo_home)
    for query in (
        f"select * from read_csv('{secret}')",
        f"select content from read_text('{secret}')",
        f"select content from read_blob('{demo_home / 'warehouse.duckdb'}')",
    ):
        with pytest.raises(UserError, match="Permission Error"):
            wh.sql(query)


def test_latest_run_is_the_latest_succeeded_one_never_a_later_failed_one(demo_copy):
    import duckdb

    succeeded = biaswh.open(demo_copy).latest_run("demo")
    con = duckdb.connect(str(demo_copy / "warehouse.duckdb"))
    con.execute(
        "insert into raw.runs select * replace ('later-failed' as run_id, 'failed' as status,"
        " started_at + interval 1 hour as started_at) from raw.runs where run_id = ?",
        [succeeded],
    )
    con.close()
    wh = biaswh.open(demo_copy)
    assert wh.studies().filter(pl.col("study") == "demo")["latest_run_id"].to_list() == ["later-failed"]
    assert wh.latest_run("demo") == succeeded
