"""`biaswh run --no-site` and `biaswh audit --no-site`: the run does everything but draw the dashboards,
says so last, and a later `biaswh dashboards` draws the pages a run that drew them would have drawn."""

from __future__ import annotations

import re
import shutil

import duckdb

from biaswh.run_outcome import SITE_NOT_REDRAWN
from tests.conftest import DEMO_STUDY, copy_warehouse, run_here

# What differs between two runs of the same study whatever drew their pages: their ids and times.
TIMES = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?|\d+(\.\d+)? ?s\b")


def _files(site) -> dict[str, tuple[bytes, int]]:
    """Every file of the site (the drawn bodies too): its bytes and modification time."""
    return {
        str(path.relative_to(site)): (path.read_bytes(), path.stat().st_mtime_ns)
        for path in sorted(site.rglob("*"))
        if path.is_file()
    }


def _latest_run(home, kind: str = "study") -> tuple[str, str, str]:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        return con.execute(
            "select run_id, status, stage_seconds from raw.runs where kind = ? order by started_at desc limit 1", [kind]
        ).fetchone()


def _pages(site, run_id: str) -> dict[str, str]:
    """The site's pages with the new run's id and every time or duration masked (the drawn bodies left out)."""

    def masked(text: str) -> str:
        return TIMES.sub("T", text.replace(run_id, "RUN").replace(run_id[:12], "RUN"))

    return {
        masked(str(path.relative_to(site))): masked(path.read_text("utf-8"))
        for path in sorted(site.rglob("*.html"))
        if ".drawn" not in path.parts
    }


def test_no_site_leaves_the_site_and_dashboards_draws_what_a_run_draws(demo_warehouse, tmp_path):
    # The demo warehouse as its run left it, pages drawn; the same warehouse and kept bodies, pages not
    # copied, for the run that draws: the two runs start alike.
    quiet, drawing = tmp_path / "quiet", tmp_path / "drawing"
    shutil.copytree(demo_warehouse.home, quiet, ignore=shutil.ignore_patterns("*.lock"))
    copy_warehouse(quiet, drawing)
    before = _files(quiet / "site")

    printed = run_here("run", str(DEMO_STUDY), "--no-site", home=quiet).stdout
    assert printed.splitlines()[-1] == SITE_NOT_REDRAWN
    assert "[demo] dashboards: not drawn; total " in printed
    assert "[demo] next: query this run (biaswh sql, or biaswh shell):" in printed
    assert _files(quiet / "site") == before  # no page written, changed or added
    run_id, status, stages = _latest_run(quiet)
    assert status == "succeeded" and "dashboards" not in stages and "analysis" in stages

    drawn = run_here("run", str(DEMO_STUDY), home=drawing).stdout
    assert drawn.splitlines()[-1] == f"dashboard site: {drawing / 'site' / 'index.html'}"
    run_here("dashboards", home=quiet)
    later, by_the_run = _pages(quiet / "site", run_id), _pages(drawing / "site", _latest_run(drawing)[0])
    assert sorted(later) == sorted(by_the_run) and any("RUN" in name for name in later)
    assert later == by_the_run

    # An audit with --no-site (one whose only subject is an LLM without its key: nothing to run) neither.
    before = _files(drawing / "site")
    audit = tmp_path / "audit.toml"
    audit.write_text(
        '[audit]\nname = "unkeyed"\nseed = 1\n[[subjects]]\nkind = "llm"\nname = "m"\n'
        'endpoint = "http://127.0.0.1:9/v1"\napi_key_env = "BIASWH_TEST_KEY_NEVER_SET"\n',
        encoding="utf-8",
    )
    printed = run_here("audit", str(audit), "--no-site", home=drawing).stdout
    assert printed.splitlines()[-1] == SITE_NOT_REDRAWN and "[audit unkeyed] run " in printed
    assert _latest_run(drawing, "audit")[1] == "succeeded"
    assert _files(drawing / "site") == before


def test_an_audit_that_can_run_nothing_in_a_fresh_warehouse_says_so_and_draws_its_site(tmp_path):
    # No study has ever written results here: no family table, no built marts, yet the audit's
    # summary, headline, profile and comparison reads must answer (they raised CatalogExceptions).
    audit = tmp_path / "audit.toml"
    audit.write_text(
        '[audit]\nname = "unkeyed"\nseed = 1\n[[subjects]]\nkind = "llm"\nname = "m"\n'
        'endpoint = "http://127.0.0.1:9/v1"\napi_key_env = "BIASWH_TEST_KEY_NEVER_SET"\n'
        '[[subjects]]\nkind = "llm"\nname = "n"\nendpoint = "http://127.0.0.1:9/v1"\n'
        'api_key_env = "BIASWH_TEST_KEY_NEVER_SET"\n[[comparisons]]\nbaseline = "m"\ncandidate = "n"\n',
        encoding="utf-8",
    )
    home = tmp_path / "fresh"
    printed = run_here("audit", str(audit), home=home).stdout
    headline = next(line for line in printed.splitlines() if line.startswith("[audit unkeyed] run "))
    assert headline.endswith(
        ": no subject measured (4 subject-study pairs not run: see each profile): no tested finding."
    )
    assert printed.splitlines()[-1] == f"dashboard site: {home / 'site' / 'index.html'}"
    assert _latest_run(home, "audit")[1] == "succeeded"
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        assert con.execute("select count(*) from main.subject_findings").fetchone() == (0,)
