"""The findings cards: verdicts follow significance, intervals are shown, nulls are called nulls."""

from __future__ import annotations

import re

from biaswh.dashboards.common.format import p_value as _p
from biaswh.dashboards.dialect.card import dialect_card
from biaswh.dashboards.recsys.card import recsys_card


def _warehouse_with_dialect_tests(con, rows: list[tuple]) -> None:
    con.execute("create schema if not exists marts; create schema if not exists analysis")
    con.execute(
        "create view marts.dim_runs as select run_id, 'demo' as run_name, 'succeeded' as run_status,"
        " now() as started_at, '{}' as parameters, '{}'::json as run_parameters from (select unnest(['r1']) as run_id)"
    )
    con.execute(
        "create table analysis.dialect_paired_tests (run_id varchar, pair_set varchar, retriever varchar, k integer,"
        " variant_a varchar, variant_b varchar, recall_a double, recall_b double, delta_pp double,"
        " ci_low double, ci_high double, p_adjusted double, is_highlighted_k boolean, adjustment varchar,"
        " is_significant boolean)"
    )
    con.executemany(
        "insert into analysis.dialect_paired_tests values ('r1', 'pairs', ?, ?, 'sae', 'aae', ?, ?, ?, ?, ?, ?, true,"
        " 'Holm', ?)",
        [(*row, row[-1] < 0.05) for row in rows],
    )
    con.execute(
        "create table analysis.dialect_power (run_id varchar, pair_set varchar, retriever varchar, k integer,"
        " detectable_gap_pp double, n_pairs integer, discordance_rate double)"
    )
    # 25 discordant pairs of 200: gaps of 6.8 and 7.2 points can occur (below 12.5), so they are detectable
    con.execute(
        "insert into analysis.dialect_power values"
        " ('r1', 'pairs', 'dense', 10, 7.2, 200, 0.125), ('r1', 'pairs', 'bm25', 10, 6.8, 200, 0.125)"
    )


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def test_a_null_result_says_no_evidence_with_its_interval_and_power(con):
    _warehouse_with_dialect_tests(
        con, [("bm25", 10, 0.90, 0.89, 1.0, -2.5, 4.5, 1.0), ("dense", 10, 0.89, 0.86, 3.0, 0.5, 5.5, 0.47)]
    )
    verdict = _text(re.search(r'<p class="verdict">(.*?)</p>', dialect_card(con)).group(1))
    assert verdict.startswith("No evidence of a difference")
    assert (
        "0 of 2 highlighted comparisons significant after Holm within each retriever over k = 10, α = 0.05." in verdict
    )
    assert "The largest gap is +3.0 points (dense, k = 10; 95% CI [+0.5, +5.5])" in verdict
    power = "A gap was detectable (80% power, α = 0.05) in 2 of 2 comparisons, and only from 6.8 to 7.2 points up"
    assert power in verdict
    assert "higher" not in verdict and "lower" not in verdict  # no direction for a null result


def test_a_significant_result_states_its_direction(con):
    _warehouse_with_dialect_tests(
        con, [("bm25", 10, 0.90, 0.80, 10.0, 4.0, 16.0, 0.004), ("dense", 10, 0.89, 0.86, 3.0, 0.5, 5.5, 0.47)]
    )
    verdict = _text(re.search(r'<p class="verdict">(.*?)</p>', dialect_card(con)).group(1))
    assert verdict.startswith("sae recall is higher than aae for bm25 at k = 10: 90.0% vs 80.0%")
    assert "(difference +10.0 points, 95% CI [+4.0, +16.0], Holm p 0.0040)" in verdict
    assert "1 of 2 highlighted comparisons significant after Holm within each retriever over k = 10" in verdict


def test_p_values_below_a_thousandth_are_never_printed_as_zero():
    assert _p(0.0) == "< 0.001" and _p(0.0004) == "< 0.001" and _p(0.0123, equals=True) == "= 0.012"


def _warehouse_with_effect_sizes(con, rows: list[tuple]) -> None:
    """Effect sizes per feature and, per feature, conditions with raw and adjusted verdicts.

    ``rows``: (feature, mean R², conditions significant by raw p, by adjusted p, conditions).
    """
    con.execute("create schema if not exists marts")
    con.execute(
        "create view marts.dim_runs as select 'r1' as run_id, 'paper' as run_name, 'succeeded' as run_status,"
        " now() as started_at, '{}' as parameters, '{\"verdicts_alpha\": 0.05}'::json as run_parameters"
    )
    con.execute(
        "create table marts.agg_recsys_effect_sizes (run_id varchar, level varchar, result_set varchar,"
        " feature varchar, r_squared_mean double, n_significant integer, n_conditions integer)"
    )
    con.execute(
        "create table marts.fct_recsys_pool_vs_recommended (run_id varchar, result_set varchar, feature varchar,"
        " condition integer, p_value double, significant_adjusted boolean, adjustment_method varchar)"
    )
    for feature, r_squared, n_raw, n_adjusted, n_conditions in rows:
        con.execute(
            "insert into marts.agg_recsys_effect_sizes values ('r1', 'all', 'paper', ?, ?, ?, ?)",
            [feature, r_squared, n_raw, n_conditions],
        )
        con.executemany(
            "insert into marts.fct_recsys_pool_vs_recommended values ('r1', 'paper', ?, ?, ?, ?, 'holm')",
            [[feature, c, 0.01 if c < n_raw else 0.5, c < n_adjusted] for c in range(n_conditions)],
        )


def test_the_recsys_card_counts_adjusted_not_raw_significance(con):
    _warehouse_with_effect_sizes(
        con,
        [
            ("polarization_score", 0.0551, 53, 50, 54),
            ("sentiment", 0.09, 40, 10, 54),  # raw p < 0.05 in most conditions, adjusted in few
            ("toxicity", 0.0171, 40, 30, 54),
        ],
    )
    verdict = _text(re.search(r'<p class="verdict">(.*?)</p>', recsys_card(con)).group(1))
    assert verdict.startswith("2 of 3 features shape what gets recommended")
    assert "90 of 162 tests significant after Holm within result set paper, α = 0.05" in verdict
    assert "polarization_score, mean R² 0.0551 (small), significant in 50 of 54 conditions (92.6%" in verdict
    assert "sentiment" not in verdict


def test_the_recsys_card_calls_a_null_a_null(con):
    _warehouse_with_effect_sizes(con, [("toxicity", 0.002, 30, 3, 54)])
    verdict = _text(re.search(r'<p class="verdict">(.*?)</p>', recsys_card(con)).group(1))
    assert verdict.startswith("No evidence that any feature shapes the recommendations")
    assert "3 of 54 tests significant after Holm within result set paper, α = 0.05" in verdict


def test_the_dialect_cards_sentence_and_table_show_the_same_k(con):
    # Significant only at k = 1; the middle highlighted k is 3, which the table used to show.
    _warehouse_with_dialect_tests(
        con,
        [
            ("bm25", 1, 0.60, 0.45, 15.0, 8.0, 22.0, 0.001),
            ("bm25", 3, 0.80, 0.78, 2.0, -3.0, 7.0, 0.60),
            ("bm25", 10, 0.90, 0.89, 1.0, -2.5, 4.5, 1.0),
        ],
    )
    body = dialect_card(con)
    verdict = _text(re.search(r'<p class="verdict">(.*?)</p>', body).group(1))
    assert "for bm25 at k = 1: 60.0% vs 45.0%" in verdict
    assert "Recall@1" in body and "Recall@3" not in body
    cells = re.findall(r"<td>(.*?)</td>", body)
    assert "60.0%" in cells and "80.0%" not in cells  # the table's row is the k = 1 row
