from biaswh.dashboards.common.site import build_site
from biaswh.pipeline import load_plugins
from biaswh.warehouse.runs.registry import mark_interrupted_runs, start_run


def test_the_runs_page_shows_an_interrupted_run_as_such(con, tmp_path):
    run_id = start_run(con, kind="study", name="killed", parameters={}).run_id
    con.execute("update raw.runs set pid = 999999999 where run_id = ?", [run_id])  # no such process
    assert mark_interrupted_runs(con) == [run_id]
    index = (build_site(con, tmp_path / "site") / "runs.html").read_text(encoding="utf-8")
    assert '<span class="status-interrupted">interrupted</span>' in index
    assert ".status-interrupted {" in index and "interrupted: process 999999999" in index


def test_an_empty_warehouse_names_the_study_each_page_needs(con, tmp_path):
    load_plugins()  # registers every study page, as `biaswh dashboards` does
    start_run(con, kind="study", name="nothing yet", parameters={})
    site = build_site(con, tmp_path / "site")
    expected = {
        "dialect.html": "studies/demo.toml",
        "dialect_features.html": "studies/demo_rule_variants.toml",
        "evaluation.html": "studies/demo_evaluation.toml",
        "weat.html": "studies/demo_weat.toml",
        "silent_bias.html": "studies/demo_silent_bias.toml",
        "recsys.html": "studies/demo_recsys.toml",
        "corpus.html": "studies/demo.toml",
    }
    for name, study in expected.items():
        assert f"biaswh run {study}</code>" in (site / name).read_text(encoding="utf-8"), name
    # no study has a succeeded run: the index lists none
    assert 'class="card"' not in (site / "index.html").read_text(encoding="utf-8")
