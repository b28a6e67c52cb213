from dashboards.common.site import build_site
from warehouse.runs import mark_interrupted_runs, start_run


def test_the_runs_page_shows_an_interrupted_run_as_such(con, tmp_path):
    run_id = start_run(con, kind="study", name="killed", parameters={}).run_id
    con.execute("update raw.runs set pid = 999999999 where run_id = ?", [run_id])  # no such process
    assert mark_interrupted_runs(con) == [run_id]
    index = (build_site(con, tmp_path / "site") / "runs.html").read_text(encoding="utf-8")
    assert '<span class="status-interrupted">interrupted</span>' in index
    assert ".status-interrupted {" in index and "interrupted: process 999999999" in index
