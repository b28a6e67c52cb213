"""The site redraws a run's page only when its run (or an earlier one) changed."""

from __future__ import annotations

import json

from biaswh.dashboards.common import site, study_pages
from biaswh.warehouse.runs.registry import start_run


def _finish(con, run_id: str) -> None:
    con.execute("update raw.runs set status = 'succeeded', finished_at = now() where run_id = ?", [run_id])


def _dim_runs(con) -> None:
    """``marts.dim_runs`` as dbt builds it (a view over ``raw.runs``), for a warehouse never built."""
    con.execute("create schema if not exists marts")
    con.execute(
        "create view marts.dim_runs as select *, kind as run_kind, name as run_name, status as run_status,"
        " null as run_parameters, [] as inputs, [] as sources from raw.runs"
    )


def test_earlier_runs_pages_are_kept_and_a_reanalysed_run_is_redrawn(con, tmp_path, monkeypatch):
    _dim_runs(con)
    drawn: list[str] = []
    ids: list[str] = []

    def render(_con, run_id):
        drawn.append(run_id)
        return f"<p>body of {run_id}</p>"

    monkeypatch.setattr(site, "PAGES", {"toy.html": ("Toy", render)})
    monkeypatch.setattr(site, "RUN_LISTS", {"toy.html": lambda _con: [(r, "toy") for r in reversed(ids)]})
    out = tmp_path / "site"
    for _ in range(3):
        ids.append(start_run(con, kind="study", name="toy", parameters={}).run_id)
        _finish(con, ids[-1])
        drawn.clear()
        site.build_site(con, out)
        assert drawn == [ids[-1]]  # only the new run's body is drawn
    latest = (out / "studies" / "toy.html").read_text(encoding="utf-8")
    assert f"body of {ids[-1]}" in latest and "run-selector" in latest
    earliest = (out / "runs" / f"{ids[0]}.html").read_text(encoding="utf-8")
    assert f"body of {ids[0]}" in earliest and ids[2][:12] in earliest  # its selector lists the newest run
    assert f"body of {ids[0]}" not in latest and f'href="runs/{ids[0]}.html"' in latest

    analysis = start_run(con, kind="analysis", name="toy", parameters={"target_run_id": ids[1]}).run_id
    _finish(con, analysis)
    drawn.clear()
    site.build_site(con, out)
    assert sorted(drawn) == sorted(ids[1:])  # the re-analysed run and the runs after it
    kept = json.loads((out / site.DRAWN_FOLDER / f"{ids[0]}.json").read_text(encoding="utf-8"))
    assert kept["body"].endswith(f"<p>body of {ids[0]}</p>")


def test_a_changed_page_module_redraws_every_page(tmp_path, monkeypatch):
    # The kept bodies are keyed by the code of the whole dashboards package: a chart or page of
    # any study family changed (not only the shared parts in dashboards/common) redraws them.
    package = tmp_path / "dashboards"
    for module in ("common/site.py", "dialect/page.py"):
        (package / module).parent.mkdir(parents=True, exist_ok=True)
        (package / module).write_text("# v1\n", encoding="utf-8")
    monkeypatch.setattr(study_pages, "__file__", str(package / "common" / "study_pages.py"))
    study_pages.code_digest.cache_clear()
    before = study_pages.code_digest()
    (package / "dialect" / "page.py").write_text("# v2: rows ordered\n", encoding="utf-8")
    study_pages.code_digest.cache_clear()
    try:
        assert study_pages.code_digest() != before
    finally:
        monkeypatch.undo()
        study_pages.code_digest.cache_clear()


def test_a_page_is_the_same_whatever_the_process_drew_before(con, tmp_path, monkeypatch):
    # Chart ids are numbered per page: two sites of the same warehouse drawn in one process,
    # with other charts drawn between them, are byte for byte the same.
    import altair as alt
    import pandas as pd

    from biaswh.dashboards.common.html import chart

    def render(_con):
        data = pd.DataFrame({"k": [1, 2], "recall": [0.5, 0.75]})
        return "".join(chart(alt.Chart(data).mark_line().encode(x="k:Q", y="recall:Q")) for _ in range(2))

    monkeypatch.setattr(site, "PAGES", {"toy.html": ("Toy", render)})
    monkeypatch.setattr(site, "RUN_LISTS", {})
    site.build_site(con, tmp_path / "one")
    chart(alt.Chart(pd.DataFrame({"x": [1]})).mark_point().encode(x="x:Q"))
    site.build_site(con, tmp_path / "two")
    first, second = ((tmp_path / name / "toy.html").read_text(encoding="utf-8") for name in ("one", "two"))
    assert 'id="chart-1"' in first and 'id="chart-2"' in first
    assert first == second
