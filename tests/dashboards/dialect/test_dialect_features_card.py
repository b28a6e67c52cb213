"""The dialect features card read against planted rows that each tell one of its rules apart.

The rows plant what a slip would show: a run analysed before the verdict columns were stored (its
Holm p at the default alpha, p = alpha not significant), rows of the all-rules variant, of rules
that changed no pair, of a larger k and of an earlier run, a significant rule that is not the first
row, a significant gain (negative cost, never the headline) and a family size stored or counted.
"""

from __future__ import annotations

import csv
import io
import json
import re

import duckdb
import pytest

from biaswh.dashboards.dialect.card_features import (
    dialect_features_card,
    feature_finding,
    fired_rules,
    judged,
    rules_policy,
)

COLUMNS = (
    "run_id varchar, pair_set varchar, retriever varchar, k integer, rule varchar, is_all_rules boolean,"
    " n_pairs integer, recall_a double, recall_b double, delta_pp double, ci_low double, ci_high double,"
    " p_holm double, p_adjusted double, adjustment varchar, alpha double, is_significant boolean,"
    " family_size integer"
)
NAMES = [column.split()[0] for column in COLUMNS.split(", ")]


def _row(rule, delta, p, *, k=10, retriever="bm25", pair_set="pairs", significant=None, **more) -> dict:
    row = {
        "run_id": "r1", "pair_set": pair_set, "retriever": retriever, "k": k, "rule": rule, "is_all_rules": False,
        "n_pairs": 7, "recall_a": 0.8, "recall_b": None if delta is None else 0.8 - delta / 100, "delta_pp": delta,
        "ci_low": None if delta is None else delta - 2, "ci_high": None if delta is None else delta + 3,
        "p_holm": None, "p_adjusted": p, "adjustment": "holm", "alpha": 0.05,
        "is_significant": (p is not None and p < 0.05) if significant is None else significant, "family_size": None,
    }  # fmt: skip
    return row | more


def _plain(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def test_a_row_with_its_verdict_stored_or_without_a_holm_p_is_left_as_it_is():
    stored = _row("copula", 3.0, 0.2, p_holm=0.01)
    assert judged(stored) is stored
    bare = _row("copula", 3.0, None)
    assert judged(bare) is bare


@pytest.mark.parametrize(("p_holm", "significant"), [(0.049, True), (0.05, False)])
def test_an_old_runs_row_is_judged_by_its_holm_p_at_the_default_alpha(p_holm, significant):
    old = _row("copula", 3.0, None, p_holm=p_holm, adjustment=None, alpha=None, is_significant=None)
    assert judged(old) == old | {
        "p_adjusted": p_holm, "adjustment": "Holm", "alpha": 0.05, "is_significant": significant
    }  # fmt: skip


def _warehouse(rows: list[dict], runs=(("r1", "2026-01-02"), ("r0", "2026-01-01"))) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("create schema marts; create schema analysis")
    con.execute("create table marts.dim_runs (run_id varchar, run_name varchar, run_status varchar,"
                " started_at timestamp, parameters varchar)")  # fmt: skip
    for run_id, started in runs:
        con.execute("insert into marts.dim_runs values (?, 'features', 'succeeded', ?, '{}')", [run_id, started])
    con.execute(f"create table analysis.dialect_feature_effects ({COLUMNS})")
    for row in rows:
        con.execute(
            f"insert into analysis.dialect_feature_effects values ({', '.join('?' * len(NAMES))})",
            [row[name] for name in NAMES],
        )
    return con


DECOYS = [
    _row("all rules", 30.0, 0.001, is_all_rules=True),
    _row("unchanged", 40.0, 0.001, n_pairs=0),
    _row("copula", 50.0, 0.001, k=20),
    _row("copula", 60.0, 0.001, run_id="r0"),
]


def test_the_fired_rules_are_the_single_rules_that_changed_a_pair_at_each_retrievers_smallest_k():
    rows = [
        _row("habitual be", 1.0, 0.4, retriever="dense", k=5),
        _row("copula", None, None),
        _row("negative concord", 2.0, 0.3),
        _row("ain't", 2.0, 0.5),
        _row("old", None, None, p_holm=0.01, adjustment=None, alpha=None, is_significant=None),
        *DECOYS,
    ]
    fired = fired_rules(_warehouse(rows), "r1")
    assert [(r["retriever"], r["k"], r["rule"]) for r in fired] == [
        ("bm25", 10, "ain't"), ("bm25", 10, "negative concord"), ("bm25", 10, "copula"), ("bm25", 10, "old"),
        ("dense", 5, "habitual be"),
    ]  # fmt: skip
    assert fired[-2]["p_adjusted"] == 0.01 and fired[-2]["adjustment"] == "Holm" and fired[-2]["is_significant"]


def test_the_policy_names_the_first_stored_adjustment_and_alpha_and_the_familys_size():
    rows = [_row("a", 1.0, 0.5, alpha=None, adjustment=None), _row("b", 1.0, 0.5, alpha=0.01, adjustment="fdr_bh")]
    assert rules_policy(rows) == "Benjamini-Hochberg-adjusted within the rules that fired (2 tests), α = 0.01"
    sized = [_row("a", 1.0, 0.5, family_size=None), _row("b", 1.0, 0.5, family_size=12), _row("c", 1.0, 0.5)]
    assert rules_policy(sized) == "Holm-adjusted within the rules that fired (12 tests), α = 0.05"
    # no alpha stored anywhere: the first row's adjustment, the default alpha; one rule on two retrievers
    unstored = [_row("a", 1.0, 0.5, alpha=None), _row("a", 1.0, 0.5, alpha=None, retriever="dense")]
    assert rules_policy(unstored) == "Holm-adjusted within the rules that fired (1 test), α = 0.05"


def test_no_rule_that_fired_is_said_in_one_sentence():
    assert feature_finding([]) == "<b>No rule changed any question</b> of this run: nothing to attribute."


def test_the_significant_cost_leads_even_below_a_larger_gap_and_a_significant_gain_never_does():
    rows = [
        _row("copula", 9.0, 0.2),
        _row("gain", -5.0, 0.001),
        _row("negative concord", 4.0, 0.004, pair_set="aae <pairs>", retriever="dense", k=3, n_pairs=12),
        _row("habitual be", 2.0, 0.03),
        _row("ain't", 1.0, 0.04),
    ]
    assert feature_finding(rows) == (
        "<b>negative concord costs recall</b>: dense recall@3 on aae &lt;pairs&gt; drops by 4.0 points"
        " (80.0% → 76.0%, 95% CI [+2.0, +7.0] points, Holm p = 0.0040, 12 pairs changed by it alone)"
        " (Holm-adjusted within the rules that fired (5 tests), α = 0.05); 2 more rules significant."
    )
    one = feature_finding([_row("copula", 0.5, 0.01, adjustment="fdr_bh")])
    assert one == (
        "<b>copula costs recall</b>: bm25 recall@10 on pairs drops by 0.5 points (80.0% → 79.5%, 95% CI"
        " [-1.5, +3.5] points, Benjamini-Hochberg p = 0.010, 7 pairs changed by it alone)"
        " (Benjamini-Hochberg-adjusted within the rules that fired (1 test), α = 0.05)."
    )


def test_without_a_significant_cost_the_first_rule_is_the_largest_difference_signed():
    rows = [_row("gain", -5.0, 0.0004), _row("copula", 3.0, 0.2)]
    assert feature_finding(rows) == (
        "<b>No single rule costs recall significantly</b> (Holm-adjusted within the rules that fired (2 tests),"
        " α = 0.05); the largest difference: gain, bm25 recall@10 on pairs, SAE − variant -5.0 points"
        " (80.0% → 85.0%, 95% CI [-7.0, -2.0] points, Holm p &lt; 0.001, 7 pairs changed by it alone)."
    )


def _cells(body: str) -> list[list[str]]:
    rows = [re.findall(r"<td[^>]*>(.*?)</td>", tr) for tr in re.findall(r"<tr>(.*?)</tr>", body, flags=re.S)]
    return [r for r in rows if r]


def test_the_card_reads_the_latest_runs_fired_rules_top_five():
    rules = ["r-a", "r-b", "r-c", "r-d", "r-e", "r-f"]
    rows = [_row(rule, 6.0 - i, 0.2 + i / 100, adjustment="fdr_bh", family_size=6) for i, rule in enumerate(rules)]
    body = dialect_features_card(_warehouse(rows + DECOYS))
    assert body.startswith('<p class="verdict"><b>No single rule costs recall significantly</b>')
    caption = (
        "Largest costs at k = 10 (top 5; Benjamini-Hochberg-adjusted within the rules that fired (6 tests), α = 0.05)"
    )
    assert f'<p class="note">{caption}</p>' in body
    header = [_plain(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", body, flags=re.S)]
    assert header == [
        "rule", "pairs", "recall SAE", "recall with the rule", "difference, points", "Benjamini-Hochberg p"
    ]  # fmt: skip
    assert _cells(body) == [
        ["r-a", "7", "80.0%", "74.0%", "+6.0", "0.20"],
        ["r-b", "7", "80.0%", "75.0%", "+5.0", "0.21"],
        ["r-c", "7", "80.0%", "76.0%", "+4.0", "0.22"],
        ["r-d", "7", "80.0%", "77.0%", "+3.0", "0.23"],
        ["r-e", "7", "80.0%", "78.0%", "+2.0", "0.24"],
    ]
    assert "Latest run <code>r1</code>; 1 earlier run of this study" in body
    payload = re.search(r'class="table-data">(.*?)</script>', body).group(1)
    download = list(csv.DictReader(io.StringIO(json.loads(payload))))
    assert [(d["rule"], d["k"], d["family_size"]) for d in download] == [(rule, "10", "6") for rule in rules[:5]]


def test_a_named_run_is_read_with_its_number_of_runs_and_holm_when_unstored():
    rows = [_row("copula", 3.0, 0.01, run_id="r0", adjustment=None), _row("negative concord", 8.0, 0.001)]
    body = dialect_features_card(_warehouse(rows), run_id="r0", n_runs=3)
    assert "<b>copula costs recall</b>" in body and "negative concord" not in body
    assert [_plain(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", body, flags=re.S)][-1] == "Holm p"
    assert "Latest run <code>r0</code>; 2 earlier runs of this study" in body
    assert "Latest run <code>r1</code>.</p>" in dialect_features_card(_warehouse(rows), run_id="r1")


def test_no_card_without_a_run_and_a_null_card_for_a_run_where_no_rule_fired():
    assert dialect_features_card(_warehouse([], runs=())) is None
    body = dialect_features_card(_warehouse([_row("unchanged", 4.0, 0.01, n_pairs=0)]), run_id="r1")
    assert body == (
        '<p class="verdict"><b>No rule changed any question</b> of this run: nothing to attribute.</p>'
        '<p class="note">Latest run <code>r1</code>.</p>'
    )
