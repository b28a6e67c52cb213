"""The WEAT and silent bias cards follow the verdict policy: adjusted counts, named families, no winner on a tie."""

from __future__ import annotations

import re

import polars as pl

from biaswh.analysis.common.store import replace_run_rows
from biaswh.analysis.silent_bias.model_comparisons import model_comparisons
from biaswh.dashboards.common.format import p_value
from biaswh.dashboards.silent_bias.card import silent_bias_card
from biaswh.dashboards.weat.card import weat_card
from biaswh.stats.multiple_comparisons import VerdictPolicy
from biaswh.stats.verdicts import with_verdicts


def _verdict(body: str) -> str:
    return re.sub(r"<[^>]+>", "", re.search(r'<p class="verdict">(.*?)</p>', body, flags=re.S).group(1))


def _runs(con) -> None:
    con.execute("create schema if not exists marts; create schema if not exists analysis")
    con.execute(
        "create view marts.dim_runs as select 'r1' as run_id, 'demo' as run_name, 'succeeded' as run_status,"
        " now() as started_at, '{}' as parameters, '{}'::json as run_parameters"
    )


def test_the_weat_card_counts_tests_significant_after_adjustment_within_the_embedding(con):
    _runs(con)
    # raw p < 0.05 for all three; after Holm within the embedding only weat1 stays (0.003 x 3)
    tests = [("weat1", 0.96, 0.001, 0.003, True), ("weat2", 0.5, 0.03, 0.06, False), ("weat3", 0.3, 0.04, 0.06, False)]
    con.execute(
        "create table marts.fct_weat_results as select 'r1' as run_id, 'glove' as embedding, 's' as test_set,"
        " unnest(?) as test, 0.1::double as ci_low, 1.5::double as ci_high",
        [[t[0] for t in tests]],
    )
    con.execute(
        "create table analysis.weat_interpretations (run_id varchar, embedding varchar, test_set varchar,"
        " test varchar, status varchar, effect_size double, p_value double, p_adjusted double,"
        " adjustment varchar, is_significant boolean)"
    )
    con.executemany(
        "insert into analysis.weat_interpretations values ('r1', 'glove', 's', ?, 'computed', ?, ?, ?, 'Holm', ?)",
        tests,
    )
    body = weat_card(con)
    verdict = _verdict(body)
    # no alpha column (a table from before verdict rows stored it): the run's recorded config, else 0.05
    assert verdict.startswith("1 of 3 WEAT tests significant after Holm within embedding glove, α = 0.05")
    assert "strongest: weat1 on glove, d = 0.96 (large;" in verdict
    assert f"adjusted p {p_value(0.003, equals=True)}" in verdict
    assert "weak" not in body
    # the table's "adjusted p" column shows the adjusted p of each test, never its raw p
    header = re.findall(r"<th[^>]*>(.*?)</th>", body)
    column = header.index("adjusted p")
    cells = {
        re.sub(r"<[^>]+>", "", row[0]): re.sub(r"<[^>]+>", "", row[column])
        for row in (re.findall(r"<td[^>]*>(.*?)</td>", tr) for tr in re.findall(r"<tr>(.*?)</tr>", body, flags=re.S))
        if row
    }
    assert (cells["weat1"], cells["weat2"], cells["weat3"]) == (p_value(0.003), p_value(0.06), p_value(0.06))
    assert p_value(0.003) != p_value(0.001)  # the raw p of weat1 would read otherwise


def test_the_weat_card_names_the_alpha_its_rows_were_judged_at(con):
    _runs(con)
    con.execute(
        "create table marts.fct_weat_results as select 'r1' as run_id, 'glove' as embedding, 's' as test_set,"
        " 'weat1' as test, 0.1::double as ci_low, 1.5::double as ci_high"
    )
    frame = pl.DataFrame(
        {
            "run_id": ["r1"],
            "embedding": ["glove"],
            "test_set": ["s"],
            "test": ["weat1"],
            "status": ["computed"],
            "effect_size": [0.9],
            "p_value": [0.02],
        }
    )
    judged = with_verdicts(frame, by=["embedding"], family_name=str, policy=VerdictPolicy("fdr_bh", 0.01))
    replace_run_rows(con, "weat_interpretations", "r1", judged)
    verdict = _verdict(weat_card(con))
    assert verdict.startswith("No evidence of an association")
    assert "0 of 1 WEAT tests significant after Benjamini-Hochberg within embedding glove, α = 0.01" in verdict


def _silent_bias_rates(con, rates: list[tuple]) -> None:
    _runs(con)
    frame = pl.DataFrame(
        [
            {
                "run_id": "r1",
                "vignette_set": "demo",
                "model": model,
                "rule_set": "keyword",
                "dimension": "all",
                "n_biased": n_biased,
                "n_silent": n_silent,
                "silent_bias_rate": n_silent / n_biased,
                "ci_low": 0.2,
                "ci_high": 0.9,
            }
            for model, n_silent, n_biased in rates
        ]
    )
    replace_run_rows(con, "silent_bias_rates", "r1", frame)
    comparisons = model_comparisons(frame.to_dicts(), run_id="r1", policy=VerdictPolicy())
    replace_run_rows(con, "silent_bias_model_comparisons", "r1", comparisons)


def test_a_tie_in_silent_bias_names_no_highest_model(con):
    # the demo: demo-model-a 2 of 3 and demo-model-b 4 of 6, both 66.7%
    _silent_bias_rates(con, [("demo-model-a", 2, 3), ("demo-model-b", 4, 6)])
    verdict = _verdict(silent_bias_card(con))
    assert verdict.startswith("Tie: no model has the highest silent bias rate")
    assert "Highest" not in verdict
    assert "0 of 1 between-model comparisons significant after Holm within the 2 models, α = 0.05" in verdict


def test_an_untested_gap_in_silent_bias_is_no_evidence_of_a_difference(con):
    _silent_bias_rates(con, [("demo-model-a", 3, 4), ("demo-model-b", 2, 4)])
    verdict = _verdict(silent_bias_card(con))
    assert verdict.startswith("No evidence of a difference between the models' silent bias rates")
    assert "demo-model-a 75.0% (3/4" in verdict and "Highest" not in verdict


def test_a_significant_gap_names_the_highest_model(con):
    _silent_bias_rates(con, [("model-a", 45, 50), ("model-b", 10, 50)])
    verdict = _verdict(silent_bias_card(con))
    assert verdict.startswith("Highest silent bias rate: model-a")
    assert "1 of 1 between-model comparisons significant after Holm" in verdict
