"""The evaluation drift series on SQuAD v1.1 validation: `biaswh run studies/squad_evaluation.toml --limit 400`."""

from __future__ import annotations

import duckdb
import pytest

from tests.conftest import REPOSITORY_ROOT, run_cli, run_study_here, shared_file

pytestmark = [pytest.mark.real_data, pytest.mark.dbt]
STUDY = REPOSITORY_ROOT / "studies" / "squad_evaluation.toml"
LIMIT = 400  # the first 400 of the seeded 2,000-question sample keep CI time modest


@pytest.fixture(scope="module")
def series(tmp_path_factory):
    for name in ("squad-v1.1/validation.parquet", "embeddings/all-MiniLM-L6-v2-squad-validation.parquet"):
        shared_file(name)
    home = tmp_path_factory.mktemp("evaluation_real") / "warehouse"
    run_study_here(str(STUDY), home=home, limit=LIMIT)
    con = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)
    yield home, con
    con.close()


def test_five_runs_one_baseline(series):
    _, con = series
    runs = con.execute("select label, is_baseline, n_queries from raw.evaluation_runs order by position").fetchall()
    assert [r[0] for r in runs] == [
        "baseline",
        "bm25_k1_3.0_b_0.0",
        "index_missing_10pct",
        "dense_ivf_flat_32x2",
        "fusion_weight_0.9_bm25",
    ]
    assert [r[1] for r in runs] == [True, False, False, False, False] and {r[2] for r in runs} == {LIMIT}
    recall = con.execute(
        "select r.ann_recall from raw.retrieval_runs r join raw.evaluation_runs e using (run_id)"
        " where e.label = 'dense_ivf_flat_32x2' and r.retriever = 'dense'"
    ).fetchone()[0]
    assert 0 < recall < 1


def test_recall_matches_the_squad_gold_context(series):
    """Recall@k from the marts equals the share of questions whose own context is in the top k (raw rows)."""
    _, con = series
    ours = dict(
        ((r, k), v)
        for r, k, v in con.execute(
            "select m.retriever, m.k, m.value from analysis.evaluation_metrics_at_k m join raw.evaluation_runs e"
            " using (run_id) where e.is_baseline and m.metric = 'recall' and m.retriever in ('bm25', 'dense')"
        ).fetchall()
    )
    for retriever in ("bm25", "dense"):
        for k in (1, 5, 20):
            expected = con.execute(
                """
                select avg(case when exists (select 1 from raw.retrieval_results r
                    where r.run_id = q.run_id and r.query_id = q.query_id and r.retriever = ? and r.rank <= ?
                    and r.doc_id = q.relevant_doc_id) then 1.0 else 0.0 end)
                from raw.retrieval_queries q join raw.evaluation_runs e using (run_id) where e.is_baseline""",
                [retriever, k],
            ).fetchone()[0]
            assert ours[(retriever, k)] == pytest.approx(expected, abs=1e-12)
    assert ours[("bm25", 20)] > 0.9 and ours[("dense", 20)] > 0.9


def test_real_drift_raises_significant_alerts(series):
    home, con = series
    significant = dict(
        con.execute(
            "select label, count(*) filter (where is_significant) from analysis.evaluation_alerts group by label"
        ).fetchall()
    )
    assert significant.get("baseline", 0) == 0
    assert significant["index_missing_10pct"] >= 1 and significant["dense_ivf_flat_32x2"] >= 1
    drop = con.execute(
        "select value, baseline_value from analysis.evaluation_alerts where label ="
        " 'index_missing_10pct' and retriever = 'bm25' and metric = 'mrr@10'"
    ).fetchone()
    assert drop is not None and drop[0] < drop[1]
    csv = run_cli(
        "sql",
        "select run_id, baseline_run_id, retriever, metric, value, baseline_value, threshold,"
        " severity, is_significant from evaluation_alerts limit 1",
        "--csv",
        home=home,
    )
    assert csv.stdout.splitlines()[0].split(",")[:3] == ["run_id", "baseline_run_id", "retriever"]
    assert "Drift over the series" in (home / "site" / "studies" / "squad_evaluation.html").read_text()
