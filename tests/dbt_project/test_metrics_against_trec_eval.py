"""The per-query metrics of the one retrieval-metric chain against trec_eval itself.

Two drift series are evaluated twice: by our SQL (``marts.fct_evaluation_query_metrics``,
built on ``marts.fct_evaluation_relevant_ranks``) and by trec_eval's own C code through
``pytrec_eval`` (the provider ``ir-measures`` uses), fed the run's raw results and the qrels
of its query set for the queries it asked. Every metric of every query, retriever, run and k
must agree, and the judgments dbt pinned for each run are exactly those qrels.
The series: the demo over SQuAD-style demo data with a graded qrels file, and the external-runs
demo. The internal-documents study (real data) is checked the same way on the run the docs'
examples made: tests/dbt_project/test_metrics_against_trec_eval_internal_docs.py.
"""

from __future__ import annotations

from collections import defaultdict

import duckdb
import ir_measures
import pytest
from ir_measures import AP, RR, P, R, Rprec, Success, nDCG

from biaswh.warehouse.settings.home import REPOSITORY_ROOT
from tests.conftest import run_study_here

pytestmark = pytest.mark.dbt
STUDIES = REPOSITORY_ROOT / "studies"
# trec_eval's implementation, not a re-implementation: ir-measures' pytrec_eval provider.
TREC_EVAL = ir_measures.providers.registry["pytrec_eval"]


# study, then the metric values compared: runs x rankings x judged queries x cutoffs x 7 metrics
SERIES = [
    pytest.param(("demo_evaluation", 4 * 20 * 64 * 5 * 7), id="demo"),
    # a BEIR folder, three dated TREC/JSON runs of an external system and our BM25 (4 k)
    pytest.param(("demo_external_runs", 4 * 1 * 6 * 4 * 7), id="external_runs"),
]


@pytest.fixture(scope="module", params=SERIES)
def warehouse(request, tmp_path_factory, demo_evaluation):
    study, expected_count = request.param
    if study == "demo_evaluation":  # the session's warehouse after that study (tests/dbt_project/conftest.py)
        yield demo_evaluation[1], expected_count, study
        return
    home = tmp_path_factory.mktemp(study) / "warehouse"
    run_study_here(str(STUDIES / f"{study}.toml"), home=home, site=False)  # metrics only: no site
    con = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)
    yield con, expected_count, study
    con.close()


def _trec_eval(qrels: list, rankings: dict, k: int | None) -> dict[tuple[str, str], float]:
    """trec_eval's value of each metric for each query of one ranking set (cut at k, or the whole ranking)."""
    # trec_eval orders a ranking by score (ties by docid), so the score is minus our rank.
    run = [
        ir_measures.ScoredDoc(query_id, str(doc_id), -float(rank))
        for query_id, hits in rankings.items()
        for rank, doc_id in hits
        if k is None or rank <= k
    ]
    if k is None:
        names = {Rprec: "r_precision"}
    else:  # RR over the ranking cut at k is trec_eval's reciprocal rank at k
        names = {R @ k: "recall", P @ k: "precision", nDCG @ k: "ndcg", AP @ k: "map", RR: "mrr"}
        names[Success @ k] = "hit_rate"
    return {
        (metric.query_id, names[metric.measure]): metric.value
        for metric in TREC_EVAL.evaluator(list(names), qrels).iter_calc(run)
    }


# The qrels of each evaluation run's query set, for the queries the run asked (as the evaluation
# job once copied them into raw.retrieval_judgments).
ASKED_QRELS = """
    select e.run_id, q.query_set, q.query_id, q.doc_id, q.relevance, q.qrels_source
    from raw.evaluation_runs e
    join marts.fct_evaluation_qrels q on q.query_set = e.query_set
    where q.query_id in (
        select a.query_id from raw.retrieval_queries a where a.run_id = e.run_id and a.query_set = e.query_set
    )
"""


def test_each_evaluation_run_is_judged_by_its_query_sets_qrels_pinned_in_dbt(warehouse):
    con, _, _ = warehouse
    asked = con.execute(f"select * from ({ASKED_QRELS}) order by all").fetchall()
    pinned = con.execute(
        "select run_id, query_set, query_id, doc_id, relevance, judgment_source"
        " from intermediate.int_retrieval_judgments_pinned"
        " where run_id in (select run_id from raw.evaluation_runs) order by all"
    ).fetchall()
    assert asked and pinned == asked
    assert con.execute("select count(*) from raw.retrieval_judgments").fetchone() == (0,)  # no mart copied into raw


def test_every_query_metric_is_trec_evals(warehouse):
    con, expected_count, _ = warehouse
    qrels: dict[str, list] = defaultdict(list)
    for run_id, query_id, doc_id, relevance in con.execute(
        f"select run_id, query_id, doc_id, relevance from ({ASKED_QRELS})"
    ).fetchall():
        qrels[run_id].append(ir_measures.Qrel(query_id, str(doc_id), relevance))
    rankings: dict[tuple[str, str], dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for run_id, retriever, query_id, rank, doc_id in con.execute(
        "select r.run_id, r.retriever, r.query_id, r.rank, r.doc_id from raw.retrieval_results r"
        " join raw.evaluation_runs using (run_id) where r.retriever <> 'hybrid_union'"
        " order by r.run_id, r.retriever, r.query_id, r.rank"
    ).fetchall():
        rankings[(run_id, retriever)][query_id].append((rank, doc_id))
    ours = con.execute(
        "select run_id, retriever, query_id, k, recall, precision, ndcg, map, mrr, hit_rate, r_precision"
        " from marts.fct_evaluation_query_metrics"
    ).fetchall()
    assert ours
    expected: dict[tuple, dict] = {}
    compared = 0
    for run_id, retriever, query_id, k, *values in ours:
        key = (run_id, retriever, k)
        if key not in expected:
            expected[key] = _trec_eval(qrels[run_id], rankings[(run_id, retriever)], k)
            expected[key] |= _trec_eval(qrels[run_id], rankings[(run_id, retriever)], None)
        for name, value in zip(("recall", "precision", "ndcg", "map", "mrr", "hit_rate", "r_precision"), values):
            # trec_eval leaves out a query with no result at all; every metric of it is 0.
            reference = expected[key].get((query_id, name), 0.0)
            assert value == pytest.approx(reference, abs=1e-9), (run_id, retriever, query_id, k, name)
            compared += 1
    assert compared == expected_count


def test_an_external_systems_dated_runs_drift_alert_and_compare(warehouse):
    con, _, study = warehouse
    if study != "demo_external_runs":
        pytest.skip("the external-runs demo only")
    # weeks 2 and 3 of "prod" (a TREC file and a JSON file) rank worse than week 1, the baseline
    alerts = con.execute(
        "select label, retriever, metric, p_value, family_size, p_adjusted, is_significant"
        " from analysis.evaluation_alerts where retriever = 'prod' order by label, metric"
    ).fetchall()
    # Each drop is the strongest 6 paired queries allow (exact p = 2/2^6), but the series' family
    # holds both breaches, so Holm doubles it past alpha: shown, not called significant.
    assert ("prod_2026-01-12", "prod", "mrr@10", 0.03125, 2, 0.0625, False) in alerts
    assert ("prod_2026-01-19", "prod", "mrr@10", 0.03125, 2, 0.0625, False) in alerts
    pairs = con.execute(
        "select system_a, system_b, mean_difference, p_adjusted >= p_value, n_paired_queries"
        " from analysis.evaluation_system_comparisons order by system_a, system_b"
    ).fetchall()
    systems = ["prod_2026-01-05:prod", "prod_2026-01-12:prod", "prod_2026-01-19:prod", "ours:bm25"]
    assert len(pairs) == 6 and {p[0] for p in pairs} | {p[1] for p in pairs} == set(systems)
    assert all(holm_not_smaller and n == 6 for *_, holm_not_smaller, n in pairs)
    # the same ranking in two formats (weeks 2 and 3) does not differ
    same = [p for p in pairs if {p[0], p[1]} == {"prod_2026-01-12:prod", "prod_2026-01-19:prod"}]
    assert same[0][2] == 0.0


def test_six_paired_queries_never_read_below_what_six_allow(warehouse):
    con, _, study = warehouse
    if study != "demo_external_runs":
        pytest.skip("the external-runs demo only")
    # Weeks 2 and 3 lose 0.5 MRR on all 6 queries: the exact two-sided sign-flip p is 2 / 2^6, not 0.
    changes = con.execute(
        "select p_value, min_p, n_paired_queries, status, severity from analysis.evaluation_alerts"
        " where retriever = 'prod' and metric = 'mrr@10'"
    ).fetchall()
    assert changes == [(0.03125, 0.03125, 6, "tested", "medium")] * 2
    # "ours" (bm25) has no query paired with the baseline (prod): not testable, and no severity.
    ours = con.execute(
        "select distinct status, severity, is_significant, p_value from analysis.evaluation_alerts where label = 'ours'"
    ).fetchall()
    assert ours == [("not testable", None, False, None)]
    smallest = con.execute("select min(p_value), min(min_p) from analysis.evaluation_system_comparisons").fetchone()
    assert smallest == (0.03125, 0.03125)


def test_a_grade_0_judgment_on_a_retrieved_document_is_not_relevant(warehouse):
    con, _, study = warehouse
    if study != "demo_external_runs":
        pytest.skip("the external-runs demo only")
    # qrels/test.tsv judges kb-003 grade 0 for q6; week 1 of prod ranks it 2nd, after kb-011 (grade 2).
    ranked = con.execute(
        "select d.source_doc_id, r.rank from raw.retrieval_results r join raw.evaluation_runs e using (run_id)"
        " join raw.corpus_documents d on d.doc_id = r.doc_id and d.corpus = 'helpdesk_demo'"
        " where e.label = 'prod_2026-01-05' and r.query_id = 'q6' order by r.rank"
    ).fetchall()
    assert ranked[:2] == [("kb-011", 1), ("kb-003", 2)]
    metrics = con.execute(
        "select m.k, m.precision, m.recall, m.map from marts.fct_evaluation_query_metrics m"
        " join raw.evaluation_runs e using (run_id) where e.label = 'prod_2026-01-05' and m.query_id = 'q6'"
        " and m.k in (1, 3) order by m.k"
    ).fetchall()
    assert metrics == [(1, 1.0, 1.0, 1.0), (3, pytest.approx(1 / 3), 1.0, 1.0)]
