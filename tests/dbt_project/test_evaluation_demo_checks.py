"""The demo drift series end to end, part two: fusion choice, overlap and latency, the page, and
refused or hostile inputs."""

from __future__ import annotations

import shutil
import tomllib

import duckdb
import pytest

from biaswh.warehouse.errors import InputError
from biaswh.warehouse.settings.home import HOME_VARIABLE, REPOSITORY_ROOT
from tests.conftest import DEMO_DATA
from tests.fingerprints import raw_fingerprint

pytestmark = pytest.mark.dbt
STUDY = REPOSITORY_ROOT / "studies" / "demo_evaluation.toml"
SETTINGS = tomllib.loads(STUDY.read_text(encoding="utf-8"))
QRELS = DEMO_DATA / "evaluation" / "demo_qrels.csv"
THRESHOLDS = REPOSITORY_ROOT / "dbt_project" / "seeds" / "evaluation" / "evaluation_alert_thresholds.csv"


def test_fusion_choice_is_the_best_on_the_tune_fold(demo_evaluation):
    _, con = demo_evaluation
    sweep = con.execute(
        "select run_id, retriever_family, retriever, parameter, fold, value from marts.agg_evaluation_fusion_sweep"
    ).fetchall()
    folds = {f for *_, f, _ in sweep}
    assert folds == {"tune", "report"}
    for run_id, family, chosen, tune_value, report_value in con.execute(
        "select run_id, retriever_family, chosen_retriever, tune_value, report_value"
        " from marts.fct_evaluation_fusion_choice"
    ).fetchall():
        # Best value first (equal to 12 decimals is a tie: a parallel sum's last bit decides nothing);
        # ties: the smaller parameter, then the retriever name.
        tune = [
            (-round(v, 12), p, r, v)
            for rid, fam, r, p, f, v in sweep
            if rid == run_id and fam == family and f == "tune"
        ]
        assert min(tune)[2] == chosen and min(tune)[3] == tune_value
        assert report_value == next(
            v for rid, fam, r, p, f, v in sweep if rid == run_id and r == chosen and f == "report"
        )


def test_overlap_shares_and_latency(demo_evaluation):
    _, con = demo_evaluation
    shares = con.execute(
        "select run_id, sum(share), sum(n_documents), any_value(n_relevant) from"
        " marts.agg_evaluation_overlap group by run_id"
    ).fetchall()
    assert len(shares) == 4
    for _, total, n, n_relevant in shares:
        assert total == pytest.approx(1.0) and n == n_relevant == 86
    latency = con.execute(
        "select count(*), count(*) filter (where latency_p50_ms <= latency_p95_ms) from marts.agg_evaluation_latency"
    ).fetchone()
    assert latency[0] == 4 * 20 and latency[1] == latency[0]


def test_dashboard_page_shows_the_series(demo_evaluation):
    home, _ = demo_evaluation
    html = (home / "site" / "studies" / "demo_evaluation.html").read_text()
    for heading in ("Alerts", "Drift over the series", "Metrics at k", "Fusion sweep", "Dense vs BM25", "Latency"):
        assert heading in html
    assert "index_missing_10pct" in html


def test_qrels_with_unknown_ids_are_refused_before_anything_runs(demo_evaluation, tmp_path, monkeypatch):
    """The ingest refuses them, so the bad file never becomes a version; the job checks the marts again."""
    home, _ = demo_evaluation
    copy = tmp_path / "warehouse"
    shutil.copytree(home, copy, ignore=shutil.ignore_patterns("site"))
    monkeypatch.setenv(HOME_VARIABLE, str(copy))
    import biaswh.ingest.evaluation.qrels
    from biaswh.compute.evaluation.steps import evaluation_job
    from biaswh.warehouse.database.connection import connect
    from biaswh.warehouse.runs.study import load_study

    for content, row, field in (
        ("query_id,doc_id\n0,0\n99999,1\n", 2, "query_id"),
        ("query_id,doc_id\n0,0\n1,0\n2,500\n", 3, "doc_id"),
    ):
        bad = tmp_path / "demo_qrels.csv"
        bad.write_text(content)
        con = connect()
        try:
            versions = con.execute("select count(*) from raw.source_versions where dataset = 'qrels'").fetchone()
            before = raw_fingerprint(con)
            with pytest.raises(InputError) as caught:
                biaswh.ingest.evaluation.qrels.load_qrels(
                    con, bad, query_set="squad_questions:demo_validation", name="demo_qrels"
                )
            assert (caught.value.row, caught.value.field) == (row, field)
            assert str(bad) in str(caught.value)
            assert raw_fingerprint(con) == before
            assert (
                con.execute("select count(*) from raw.source_versions where dataset = 'qrels'").fetchone() == versions
            )
            # Stored anyway (as by code older than the ingest check): the job still refuses before it runs.
            with monkeypatch.context() as unchecked:
                unchecked.setattr(biaswh.ingest.evaluation.qrels, "check_judgment_ids", lambda *args: None)
                biaswh.ingest.evaluation.qrels.load_qrels(
                    con, bad, query_set="squad_questions:demo_validation", name="demo_qrels"
                )
            before = raw_fingerprint(con)
            with pytest.raises(InputError) as caught:
                evaluation_job(con, load_study(STUDY, check_steps=False), "a-study-run")
            assert (caught.value.row, caught.value.field) == (row, field)
            assert raw_fingerprint(con) == before
        finally:
            con.close()


def test_page_escapes_labels_and_descriptions(demo_evaluation, tmp_path):
    home, _ = demo_evaluation
    hostile = '<script>alert("x")</script>'
    copy = tmp_path / "warehouse.duckdb"
    shutil.copy(home / "warehouse.duckdb", copy)
    con = duckdb.connect(str(copy))
    try:
        con.execute("update raw.evaluation_runs set label = ? where position = 2", [hostile])
        con.execute(
            "update analysis.evaluation_alerts set label = ?, description = ? where position = 2", [hostile, hostile]
        )
        from biaswh.dashboards.evaluation.page import render

        html = render(con)
    finally:
        con.close()
    assert hostile not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
