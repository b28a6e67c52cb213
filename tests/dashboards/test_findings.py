"""The findings cards: verdicts follow significance, intervals are shown, nulls are called nulls."""

from __future__ import annotations

import re

from dashboards.cards.dialect import dialect_card
from dashboards.cards.recsys import recsys_card
from dashboards.findings import p_value as _p


def _warehouse_with_dialect_tests(con, rows: list[tuple]) -> None:
    con.execute("create schema if not exists marts; create schema if not exists analysis")
    con.execute(
        "create view marts.dim_runs as select run_id, 'demo' as run_name, 'succeeded' as run_status,"
        " now() as started_at from (select unnest(['r1']) as run_id)"
    )
    con.execute(
        "create table analysis.dialect_paired_tests (run_id varchar, retriever varchar, k integer,"
        " variant_a varchar, variant_b varchar, recall_a double, recall_b double, delta_pp double,"
        " ci_low double, ci_high double, p_holm double, is_highlighted_k boolean)"
    )
    con.executemany(
        "insert into analysis.dialect_paired_tests values ('r1', ?, ?, 'sae', 'aae', ?, ?, ?, ?, ?, ?, true)", rows
    )
    con.execute(
        "create table analysis.dialect_power (run_id varchar, retriever varchar, k integer,"
        " detectable_gap_pp double, n_pairs integer)"
    )
    con.execute("insert into analysis.dialect_power values ('r1', 'dense', 10, 7.2, 200), ('r1', 'bm25', 10, 6.8, 200)")


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def test_a_null_result_says_no_evidence_with_its_interval_and_power(con):
    _warehouse_with_dialect_tests(
        con, [("bm25", 10, 0.90, 0.89, 1.0, -2.5, 4.5, 1.0), ("dense", 10, 0.89, 0.86, 3.0, 0.5, 5.5, 0.47)]
    )
    verdict = _text(re.search(r'<p class="verdict">(.*?)</p>', dialect_card(con)).group(1))
    assert verdict.startswith("No evidence of a difference")
    assert "the largest gap is 3 points (dense, k = 10; 95% CI [0.5, 5.5])" in verdict
    assert "A gap was detectable (80% power) in 2 of 2 comparisons, and only from 6.8 to 7.2 points up" in verdict
    assert "higher" not in verdict and "lower" not in verdict  # no direction for a null result


def test_a_significant_result_states_its_direction(con):
    _warehouse_with_dialect_tests(
        con, [("bm25", 10, 0.90, 0.80, 10.0, 4.0, 16.0, 0.004), ("dense", 10, 0.89, 0.86, 3.0, 0.5, 5.5, 0.47)]
    )
    verdict = _text(re.search(r'<p class="verdict">(.*?)</p>', dialect_card(con)).group(1))
    assert verdict.startswith("sae recall is higher than aae for bm25 at k = 10: 90.0% vs 80.0%")
    assert "(difference 10 points, 95% CI [4, 16], Holm p 0.004)" in verdict
    assert "1 of 2 highlighted comparisons" in verdict


def test_p_values_below_a_thousandth_are_never_printed_as_zero():
    assert _p(0.0) == "< 0.001" and _p(0.0004) == "< 0.001" and _p(0.0123, equals=True) == "= 0.0123"


def _warehouse_with_effect_sizes(con, rows: list[tuple]) -> None:
    con.execute("create schema if not exists marts")
    con.execute(
        "create view marts.dim_runs as select 'r1' as run_id, 'paper' as run_name, 'succeeded' as run_status,"
        " now() as started_at"
    )
    con.execute(
        "create table marts.recsys_effect_sizes_aggregated (run_id varchar, level varchar, result_set varchar,"
        " feature varchar, r_squared_mean double, n_significant integer, n_conditions integer,"
        " share_significant double, share_significant_ci_low double, share_significant_ci_high double,"
        " marker varchar)"
    )
    con.executemany(
        "insert into marts.recsys_effect_sizes_aggregated values ('r1', 'all', 'paper', ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )


def test_the_recsys_card_leads_with_the_largest_marked_effect_and_its_interval(con):
    _warehouse_with_effect_sizes(
        con,
        [
            ("polarization_score", 0.0551, 53, 54, 53 / 54, 0.902, 0.997, "***"),
            ("sentiment", 0.09, 10, 54, 10 / 54, 0.104, 0.309, None),  # larger R², not significant in most
            ("toxicity", 0.0171, 40, 54, 40 / 54, 0.61, 0.84, "**"),
        ],
    )
    verdict = _text(re.search(r'<p class="verdict">(.*?)</p>', recsys_card(con)).group(1))
    assert verdict.startswith("2 of 3 features shape what gets recommended")
    assert "polarization_score, mean R² 0.0551, significant in 53 of 54 conditions (98.1%, 95% CI [90.2%, 99.7%])" in (
        verdict
    )


def test_the_recsys_card_calls_a_null_a_null(con):
    _warehouse_with_effect_sizes(con, [("toxicity", 0.002, 3, 54, 3 / 54, 0.019, 0.151, None)])
    verdict = _text(re.search(r'<p class="verdict">(.*?)</p>', recsys_card(con)).group(1))
    assert verdict.startswith("No evidence that any feature shapes the recommendations")
