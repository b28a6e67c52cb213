"""The recommendation card counts tests significant after adjustment within each result set, at the
study's ``[verdicts]`` (Benjamini-Hochberg at alpha = 0.01 here), and gives each feature's share of
significant conditions with its Wilson interval (statsmodels' ``proportion_confint`` the oracle).

The planted run has two result sets, a feature significant in exactly half its conditions (not
"most"), one with no effect size stored, an earlier run and tests not yet adjusted.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re

import duckdb
from statsmodels.stats.proportion import proportion_confint

from biaswh.dashboards.recsys.card import recsys_card, recsys_verdict, verdict_rule

SETTINGS = '{"settings": {"verdicts": {"alpha": 0.01, "adjustment": "bh"}}}'


def _warehouse(features: list[tuple], *, method: str | None = "fdr_bh") -> duckdb.DuckDBPyConnection:
    """``features``: (result set, feature, mean R² or None, significant conditions, conditions) of run r1."""
    con = duckdb.connect()
    con.execute("create schema marts")
    con.execute(
        "create table marts.dim_runs as select * from (values"
        " ('r1', 'paper', 'succeeded', timestamp '2026-01-02', ?, '{\"recsys_published_alpha\": 0.1}'),"
        " ('r0', 'paper', 'succeeded', timestamp '2026-01-01', '{}', '{}'))"
        " as runs(run_id, run_name, run_status, started_at, parameters, run_parameters)",
        [SETTINGS],
    )
    con.execute(
        "create table marts.fct_recsys_pool_vs_recommended (run_id varchar, result_set varchar, feature varchar,"
        " condition integer, significant_adjusted boolean, adjustment_method varchar)"
    )
    con.execute(
        "create table marts.agg_recsys_effect_sizes (run_id varchar, level varchar, result_set varchar,"
        " feature varchar, r_squared_mean double)"
    )
    for result_set, feature, r_squared, n_significant, n_conditions in features:
        con.execute(
            "insert into marts.fct_recsys_pool_vs_recommended select 'r1', ?, ?, c, c < ?, ? from range(?) t(c)",
            [result_set, feature, n_significant, method, n_conditions],
        )
        for level, value in (("all", r_squared), ("by_model", 0.9)):  # only level 'all' is the card's
            con.execute(
                "insert into marts.agg_recsys_effect_sizes values ('r1', ?, ?, ?, ?)",
                [level, result_set, feature, value],
            )
    # an earlier run, significant everywhere, and tests of r1 not adjusted (no method): neither counts
    con.execute("insert into marts.fct_recsys_pool_vs_recommended select 'r0', 'paper', 'toxicity', c, true, 'holm'"
                " from range(9) t(c)")  # fmt: skip
    con.execute("insert into marts.fct_recsys_pool_vs_recommended select 'r1', 'paper', 'toxicity', c, true, null"
                " from range(9) t(c)")  # fmt: skip
    return con


def _verdict(body: str) -> str:
    return re.sub(r"<[^>]+>", "", re.search(r'<p class="verdict">(.*?)</p>', body, flags=re.S).group(1))


def _wilson(successes: int, trials: int) -> str:
    low, high = proportion_confint(successes, trials, alpha=0.05, method="wilson")
    return f"[{100 * low:.1f}%, {100 * high:.1f}%]"


FEATURES = [
    ("paper", "sentiment", 0.30, 27, 54),  # the largest R², significant in exactly half: not most
    ("amazon", "toxicity", 0.20, 40, 54),
    ("paper", "polarization", None, 30, 54),  # no effect size stored
]


def test_features_significant_in_most_conditions_are_counted_per_result_set_under_the_policy():
    verdict = _verdict(recsys_card(_warehouse(FEATURES)))
    assert verdict == (
        "2 of 3 features shape what gets recommended (significant after adjustment in most of their conditions;"
        " 40 of 54 tests significant after Benjamini-Hochberg within result set amazon, α = 0.01;"
        " 57 of 108 tests significant after Benjamini-Hochberg within result set paper, α = 0.01)."
        f" The largest observed effect: toxicity, mean R² 0.2 (medium), significant in 40 of 54 conditions"
        f" (74.1%, 95% CI {_wilson(40, 54)})."
    )


def test_a_flagged_feature_without_an_effect_size_has_an_unknown_magnitude():
    verdict = _verdict(recsys_card(_warehouse(FEATURES[2:])))
    assert (
        f"polarization, mean R² – (unknown), significant in 30 of 54 conditions (55.6%, 95% CI {_wilson(30, 54)})"
        in verdict
    )


def test_no_evidence_counts_each_result_set_in_turn():
    verdict = _verdict(
        recsys_card(_warehouse([("paper", "sentiment", 0.3, 2, 10), ("amazon", "toxicity", 0.2, 5, 10)]))
    )
    assert verdict.endswith(
        "(5 of 10 tests significant after Benjamini-Hochberg within result set amazon, α = 0.01;"
        " 2 of 10 tests significant after Benjamini-Hochberg within result set paper, α = 0.01)."
    )


def test_no_feature_significant_in_most_conditions_is_no_evidence():
    verdict = _verdict(recsys_card(_warehouse(FEATURES[:1], method="bonferroni")))
    assert verdict == (
        "No evidence that any feature shapes the recommendations in most conditions: no feature is significant"
        " after adjustment in more than half of its conditions (27 of 54 tests significant after bonferroni"
        " within result set paper, α = 0.01)."
    )


def test_no_adjusted_test_asks_for_the_job():
    assert recsys_verdict([], alpha=0.05) == "<b>No adjusted tests</b>: run the <code>recsys_bias</code> job."
    assert _verdict(recsys_card(_warehouse([]), run_id="r1")) == "No adjusted tests: run the recsys_bias job."


def test_the_table_shows_six_features_by_effect_size_with_their_share_and_interval():
    planted = [("paper", f"feature {i}", 0.01 * i, i, 10) for i in range(1, 8)]
    body = recsys_card(_warehouse(planted))
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", tr) for tr in re.findall(r"<tr>(.*?)</tr>", body, flags=re.S)]
    cells = [c for c in cells if c]
    assert [c[1] for c in cells] == [f"feature {i}" for i in (7, 6, 5, 4, 3, 2)]
    assert cells[0] == ["paper", "feature 7", "0.07", "small", "7/10", "70.0%", _wilson(7, 10)]
    assert cells[-1][2:4] == ["0.02", "small"]
    payload = re.search(r'class="table-data">(.*?)</script>', body).group(1)
    download = list(csv.DictReader(io.StringIO(json.loads(payload))))
    # the download holds the stored numbers behind the shown rows, not their display text
    assert [(d["feature"], float(d["r_squared_mean"]), int(d["n_significant_adjusted"])) for d in download] == [
        (f"feature {i}", 0.01 * i, i) for i in (7, 6, 5, 4, 3, 2)
    ]
    header = [re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<th[^>]*>(.*?)</th>", body)]
    assert header == ["result set", "feature", "mean R²", "magnitude", "significant", "share", "95% CI (Wilson)"]
    caption = html.unescape(re.search(r'<p class="note">(.*?)</p>', body).group(1))
    assert caption == (
        "Features by mean R² (Cohen's d → d²/(d²+4), Cramér's V → V²; R² 0.02 small, 0.13 medium, 0.26 large)"
        " over all conditions; significant after Benjamini-Hochberg within the result set, α = 0.01"
    )
    assert "Latest run <code>r1</code>; 1 earlier run of this study" in body


def test_a_run_named_is_that_run_and_alone_it_names_no_earlier_run():
    con = _warehouse(FEATURES)
    earlier = recsys_card(con, "r0")
    assert _verdict(earlier).startswith("1 of 1 features shape what gets recommended") and "toxicity" in earlier
    assert "9 of 9 tests significant after Holm within result set paper, α = 0.05" in _verdict(earlier)
    assert "Latest run <code>r0</code>.</p>" in earlier


def test_a_feature_without_an_effect_size_is_listed_last_with_no_magnitude():
    body = recsys_card(_warehouse(FEATURES))
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", tr) for tr in re.findall(r"<tr>(.*?)</tr>", body, flags=re.S)]
    assert [c for c in cells if c][-1] == ["paper", "polarization", "–", "–", "30/54", "55.6%", _wilson(30, 54)]


def test_the_rule_names_the_runs_stored_or_given_adjustment_and_its_alpha():
    con = _warehouse(FEATURES)
    assert verdict_rule(con, "r1") == "significant after Benjamini-Hochberg within the result set, α = 0.01"
    assert verdict_rule(con, "r1", "holm") == "significant after Holm within the result set, α = 0.01"
    assert verdict_rule(con, "r0") == "significant after Holm within the result set, α = 0.05"
    assert verdict_rule(con, "no such run") == "significant after Holm within the result set, α = 0.05"
