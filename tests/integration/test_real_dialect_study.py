"""The flagship study on the real data: `biaswh run studies/squad_dialect.toml`, end to end.

Its run is the session's (tests/real_dialect_studies.py), in a warehouse that also holds the
seed-compatible study's run: every check reads this run's rows and pairs.
"""

import random
import re
from pathlib import Path

import duckdb
import numpy as np
import pytest
from rank_bm25 import BM25Okapi
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import proportion_confint

from biaswh.dashboards.dialect.power_sentences import reachable_gap
from biaswh.stats.paired.power import detectable_gap
from tests.conftest import run_here
from tests.readme_claims import power_explanation
from tests.real_dialect_studies import PAIR_SET

pytestmark = [pytest.mark.real_data, pytest.mark.dbt]


@pytest.fixture(scope="module")
def study(real_dialect_studies):
    """(warehouse folder, connection, what the run printed, its run id): the session's run of the study
    (tests/real_dialect_studies.py), beside the seed-compatible run it shares the warehouse with."""
    home = real_dialect_studies.home
    con = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)
    yield home, con, real_dialect_studies.completed, real_dialect_studies.run_id
    con.close()


def test_contract_relations_answer_ad_hoc_sql(study):
    home, _, _, _ = study
    recall = run_here(
        "sql",
        "select retriever, variant, k, n_queries, n_hits, recall from dialect_recall_at_k"
        " where k = 10 and retriever = 'bm25' order by variant",
        "--csv",
        home=home,
    )
    rows = [line.split(",") for line in recall.stdout.strip().splitlines()[1:]]
    assert [(r[0], r[1], r[2], r[3]) for r in rows] == [("bm25", "aae", "10", "200"), ("bm25", "sae", "10", "200")]
    columns = run_here("sql", "select * from dialect_paired_tests limit 0", "--csv", home=home).stdout.splitlines()[0]
    for column in (
        "run_id",
        "retriever",
        "k",
        "variant_a",
        "variant_b",
        "both_hit",
        "only_a",
        "only_b",
        "neither",
        "delta_pp",
        "p_exact",
        "p_midp",
        "p_chi2_cc",
        "p_holm",
        "ci_low",
        "ci_high",
    ):
        assert column in columns.split(",")


def test_bm25_ranks_equal_a_direct_rank_bm25_computation(study):
    """rank_bm25 itself over the whole corpus, for 60 of the 200 pairs (seeded; the library's
    scoring loop costs 0.17 s a query), gives our gold ranks; the recall mart counts those ranks."""
    _, con, _, run_id = study
    documents = con.execute(
        "select doc_id, document_text from marts.dim_corpus_documents where split = 'train' order by doc_id"
    ).fetchall()
    tokenize = lambda text: re.findall(r"[a-z0-9]+", text.lower())  # noqa: E731  the original study's tokenizer
    index = BM25Okapi([tokenize(text) for _, text in documents])
    doc_ids = np.array([d for d, _ in documents])
    queries = con.execute(
        "select q.query_id, q.variant, q.query_text, g.gold_doc_id from staging.stg_retrieval__queries q"
        " join marts.fct_pair_gold_documents g on g.pair_set = q.query_set and g.pair_id = q.query_id"
        " where q.query_set = ? order by 1, 2",
        [PAIR_SET],
    ).fetchall()
    assert len(queries) == 400
    checked = set(random.Random(20261124).sample(sorted({pair_id for pair_id, *_ in queries}), 60))
    expected_ranks = {}
    for pair_id, variant, text, gold in queries:
        if pair_id in checked:
            scores = index.get_scores(tokenize(text))
            order = np.lexsort((doc_ids, -scores))  # score descending, ties by doc_id: our documented rule
            expected_ranks[(pair_id, variant)] = int(np.nonzero(doc_ids[order] == gold)[0][0]) + 1
    ours = {
        (p, v): r
        for p, v, r in con.execute(
            "select pair_id, variant, rank_of_gold from marts.fct_dialect_gold_ranks where retriever = 'bm25'"
            " and run_id = ?",
            [run_id],
        ).fetchall()
    }
    assert len(expected_ranks) == 120 and len(ours) == 400
    assert {key: ours[key] for key in expected_ranks} == {
        key: (rank if rank <= 100 else None) for key, rank in expected_ranks.items()
    }
    for k in (1, 5, 10, 20, 100):
        for variant in ("sae", "aae"):
            counted = sum(r is not None and r <= k for (p, v), r in ours.items() if v == variant)
            stored = con.execute(
                "select n_hits from marts.agg_dialect_recall_at_k where retriever = 'bm25' and k = ? and variant = ?"
                " and run_id = ?",
                [k, variant, run_id],
            ).fetchone()[0]
            assert stored == counted, (k, variant)


def test_p_values_and_intervals_match_statsmodels(study):
    _, con, _, run_id = study
    rows = con.execute(
        "select both_hit, only_a, only_b, neither, p_exact, p_chi2_cc, p_midp, p_holm, is_highlighted_k"
        " from analysis.dialect_paired_tests where run_id = ?",
        [run_id],
    ).fetchall()
    assert len(rows) == 5 * 100
    for both, only_a, only_b, neither, p_exact, p_chi2, p_midp, p_holm, highlighted in rows:
        table = [[both, only_a], [only_b, neither]]
        assert p_exact == pytest.approx(mcnemar(table, exact=True).pvalue, abs=1e-12)
        if only_a + only_b:
            assert p_chi2 == pytest.approx(mcnemar(table, exact=False, correction=True).pvalue, abs=1e-12)
        assert 0 <= p_midp <= p_exact <= 1
        assert (p_holm is not None) == highlighted and (p_holm is None or p_holm >= p_exact)
    for n_hits, n, low, high in con.execute(
        "select n_hits, n_queries, recall_ci_low, recall_ci_high from marts.agg_dialect_recall_at_k"
    ).fetchall():
        expected_low, expected_high = proportion_confint(n_hits, n, method="wilson")
        assert (low, high) == pytest.approx((expected_low, expected_high), abs=1e-9)


def test_wilcoxon_policies_report_their_n_and_power_says_what_it_cannot_tell(study):
    _, con, _, run_id = study
    policies = con.execute(
        "select policy, min(n_used), max(n_used) from analysis.dialect_rank_tests where run_id = ?"
        " group by 1 order by 1",
        [run_id],
    ).fetchall()
    assert policies[0][0] == "miss_as_depth_plus_one" and policies[0][1:] == (200, 200)
    assert policies[1][0] == "original" and policies[1][2] < 200
    power = con.execute("select sentence from analysis.dialect_power where run_id = ?", [run_id]).fetchall()
    sentences = [s for (s,) in power]
    assert len(sentences) == 15 and any("cannot tell" in s for s in sentences)


def test_dashboard_page_shows_the_study(study):
    home, _, completed, _ = study
    site = Path(completed.stdout.strip().splitlines()[-1].removeprefix("dashboard site: ")).parent
    page = site / "studies" / "squad_dialect.html"
    html = page.read_text(encoding="utf-8")
    for needle in (
        "Recall@k",
        "Discordant pairs",
        "Wilcoxon",
        "What this study can detect",
        "Provenance",
        "aave_poc_dataset_20250927-193921.json",
    ):
        assert needle in html


def test_planning_power_and_power_at_the_observed_discordance_are_explained_with_this_runs_numbers(study):
    """docs/formats-and-exports.md: 200 pairs detect ~7 points at 12.5% discordance (planning), but
    this run's 1 to 6 discordant pairs make no gap detectable (every formula gap exceeds its discordance)."""
    home, con, _, run_id = study
    claims = power_explanation()
    assert round(100 * detectable_gap(200, claims["planning_rate"], alpha=0.05), 1) == claims["planning_gap"]
    power = con.execute(
        "select n_pairs, n_discordant, discordance_rate, detectable_gap_pp from analysis.dialect_power"
        " where run_id = ?",
        [run_id],
    ).fetchall()
    assert {n for n, *_ in power} == {200}
    discordant = [d for _, d, _, _ in power]
    assert (min(discordant), max(discordant)) == (claims["fewest_discordant"], claims["most_discordant"])
    gaps = [g for *_, g in power]
    assert (round(min(gaps), 2), round(max(gaps), 2)) == (claims["smallest_formula_gap"], claims["largest_formula_gap"])
    rows = [{"detectable_gap_pp": g, "discordance_rate": rate} for _, _, rate, g in power]
    assert all(reachable_gap(row) is None for row in rows)
    page = (home / "site" / "studies" / "squad_dialect.html").read_text(encoding="utf-8")
    assert "<b>Planning power</b> (before the data): 200 pairs detect" in page
    assert "<b>Power at the observed discordance</b>" in page and "none (6)" in page
    assert "No gap this data allows was detectable with 80% power at α = 0.05." in page
