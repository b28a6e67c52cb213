"""The dialect card's sentence and headline k, read against planted rows that each tell one rule apart.

Each case plants rows where a slip in one rule would read otherwise: the best of several
significant comparisons (by adjusted p, not the first row), a significant gap below one point
or below zero, a missing gap, a family whose first row has no adjustment stored, several k, a
study under ``[verdicts] alpha = 0.01`` with Benjamini-Hochberg, and no detectable gap at all.
"""

from __future__ import annotations

import csv
import io
import json
import re

import duckdb

from biaswh.dashboards.dialect.card import dialect_card, dialect_finding, headline_k

NULL_MESSAGE = '<p class="verdict">No paired comparison at the highlighted k.</p>'


def _row(retriever, k, delta, p_adjusted, *, alpha=0.05, adjustment="Holm"):
    return {
        "retriever": retriever,
        "k": k,
        "variant_a": "SAE original",
        "variant_b": "AAE rewrite",
        "recall_a": 0.80,
        "recall_b": None if delta is None else 0.80 - delta / 100,
        "delta_pp": delta,
        "ci_low": None if delta is None else delta - 2,
        "ci_high": None if delta is None else delta + 2,
        "p_adjusted": p_adjusted,
        "adjustment": adjustment,
        "is_significant": p_adjusted is not None and p_adjusted < alpha,
    }


def _sentence_of(body: str) -> str:
    return re.sub(r"<[^>]+>", "", re.search(r'<p class="verdict">(.*?)</p>', body, flags=re.S).group(1))


def _sentence(rows, power=None, alpha=0.05) -> str:
    return re.sub(r"<[^>]+>", "", dialect_finding(rows, power or {}, alpha=alpha))


def test_no_rows_is_said_in_one_sentence():
    assert dialect_finding([], {}, alpha=0.05) == NULL_MESSAGE


def test_the_best_of_several_significant_comparisons_is_the_smallest_adjusted_p():
    # the first significant row is not the best one; the best one's k is not the largest gap's k
    rows = [_row("bm25", 1, 9.0, 0.03), _row("dense", 10, 4.0, 0.001), _row("bm25", 10, 12.0, 0.2)]
    assert headline_k(rows) == 10
    assert headline_k(list(reversed(rows))) == 10
    sentence = _sentence(rows)
    assert sentence.startswith("SAE original recall is higher than AAE rewrite for dense at k = 10")
    assert "difference +4.0 points" in sentence


def test_a_significant_comparison_leads_even_when_a_larger_gap_is_not_significant():
    rows = [_row("bm25", 10, 25.0, 0.4), _row("dense", 1, 3.0, 0.01)]
    assert headline_k(rows) == 1


def test_a_significant_gap_below_one_point_is_higher_and_a_negative_one_lower():
    # a large sample makes half a point significant; the direction is the sign of the gap, not its size
    assert "recall is higher than" in _sentence([_row("bm25", 10, 0.5, 0.001)])
    lower = _sentence([_row("bm25", 10, -6.0, 0.001)])
    assert lower.startswith("SAE original recall is lower than AAE rewrite for bm25 at k = 10")
    assert "difference -6.0 points" in lower


def test_without_a_significant_comparison_the_largest_gap_leads_and_a_missing_gap_counts_as_none():
    rows = [_row("bm25", 1, None, None), _row("dense", 5, 0.5, 0.6), _row("hybrid", 10, -0.3, 0.9)]
    assert headline_k(rows) == 5
    assert headline_k([_row("bm25", 1, 0.2, 0.9), _row("dense", 10, -3.0, 0.7)]) == 10
    sentence = _sentence(rows)
    assert sentence.startswith(
        "No evidence of a difference between SAE original and AAE rewrite: 0 of 3 highlighted comparisons"
    )
    assert "The largest gap is +0.5 points (dense, k = 5;" in sentence


def test_the_family_names_its_stored_adjustment_its_ks_and_the_policys_alpha():
    # the first row stores no adjustment: the family's adjustment is the first one stored
    rows = [
        _row("bm25", 10, 1.0, 0.5, adjustment=None),
        _row("bm25", 1, 2.0, 0.3, adjustment="Benjamini-Hochberg"),
        _row("dense", 3, 1.5, 0.02, alpha=0.01, adjustment="Benjamini-Hochberg"),
    ]
    sentence = _sentence(rows, {("bm25", 10): None}, alpha=0.01)
    assert (
        "0 of 3 highlighted comparisons significant after Benjamini-Hochberg within each retriever over"
        " k = 1, 3, 10, α = 0.01." in sentence
    )
    assert sentence.endswith("No gap this data allows was detectable with 80% power at α = 0.01.")


def test_a_family_with_no_stored_adjustment_is_holm():
    rows = [_row("bm25", 10, 1.0, 0.5, adjustment=None), _row("dense", 10, 2.0, 0.4, adjustment="")]
    assert "significant after Holm within each retriever over k = 10, α = 0.05" in _sentence(rows)


def _warehouse(rows: list[tuple], *, alpha: float | None = 0.01, parameters: str = "{}") -> duckdb.DuckDBPyConnection:
    """``rows``: (run, retriever, k, highlighted, delta, p_adjusted[, pair set, variant b]), judged by BH at
    0.01; ``alpha``: the alpha the rows store (None: a table from before they stored it)."""
    con = duckdb.connect()
    con.execute("create schema marts; create schema analysis")
    con.execute(
        "create table marts.dim_runs as select * from (values ('r1', 'dialect', 'succeeded', timestamp '2026-01-02',"
        " ?), ('r0', 'dialect', 'succeeded', timestamp '2026-01-01', '{}')) as runs(run_id, run_name, run_status,"
        " started_at, parameters), (select '{}' as run_parameters)",
        [parameters],
    )
    con.execute(
        "create table analysis.dialect_paired_tests (run_id varchar, pair_set varchar, retriever varchar, k integer,"
        " variant_a varchar, variant_b varchar, recall_a double, recall_b double, delta_pp double, ci_low double,"
        " ci_high double, p_adjusted double, is_highlighted_k boolean, adjustment varchar, alpha double,"
        " is_significant boolean)"
    )
    for run, retriever, k, highlighted, delta, p, *pair in rows:
        pair_set, variant_b = pair or ("dialect_pairs", "aae\nrewrite")
        con.execute(
            "insert into analysis.dialect_paired_tests values (?, ?, ?, ?, 'sae', ?, 0.8, 0.8 - ? / 100, ?, ? - 2.5,"
            " ? + 1.5, ?, ?, 'Benjamini-Hochberg', ?, ?)",
            [run, pair_set, retriever, k, variant_b, delta, delta, delta, delta, p, highlighted, alpha, p < 0.01],
        )
    con.execute(
        "create table analysis.dialect_power as select * from (values ('r1', 'dialect_pairs', 'bm25', 10, 4.0, 0.5),"
        " ('r1', 'dialect_pairs', 'dense', 10, 60.0, 0.5), ('r0', 'dialect_pairs', 'dense', 10, 3.0, 0.5),"
        " ('r1', 'other_pairs', 'dense', 10, 5.0, 0.5))"
        " as power(run_id, pair_set, retriever, k, detectable_gap_pp, discordance_rate)"
    )
    return con


def _cells(body: str) -> list[list[str]]:
    rows = [re.findall(r"<td[^>]*>(.*?)</td>", tr) for tr in re.findall(r"<tr>(.*?)</tr>", body, flags=re.S)]
    return [r for r in rows if r]


DECOYS = [
    ("r0", "bm25", 1, True, 30.0, 0.0001),  # an earlier run
    ("r1", "bm25", 5, False, 40.0, 0.0001),  # a sweep k, in no family
    ("r1", "hybrid@0.3", 10, True, 50.0, 0.0001),  # a sweep point of a retriever
]


def test_the_card_reads_its_runs_highlighted_rows_at_the_policys_alpha():
    con = _warehouse([("r1", "bm25", 10, True, 2.0, 0.02), ("r1", "dense", 10, True, -1.0, 0.5), *DECOYS])
    body = dialect_card(con)
    verdict = _sentence_of(body)
    assert verdict.startswith("No evidence of a difference between sae and aae\nrewrite: 0 of 2 highlighted")
    assert "significant after Benjamini-Hochberg within each retriever over k = 10, α = 0.01." in verdict
    # dense's gap of 60 points cannot occur at a discordance of 50%: only bm25's is detectable
    assert verdict.endswith(
        "A gap was detectable (80% power, α = 0.01) in 1 of 2 comparisons, and only from 4.0 to 4.0 points up."
    )
    assert "Recall@10</p>" in body and "Latest run <code>r1</code>; 1 earlier run of this study" in body
    header = [re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<th[^>]*>(.*?)</th>", body, flags=re.S)]
    assert header == [
        "retriever", "recall sae", "recall aae\nrewrite", "Δ pp", "95% CI (pp)", "Benjamini-Hochberg p", "significant"
    ]  # fmt: skip
    assert _cells(body) == [
        ["bm25", "80.0%", "78.0%", "+2.0", "[-0.5, +3.5]", "0.020", "no"],
        ["dense", "80.0%", "81.0%", "-1.0", "[-3.5, +0.5]", "0.50", "no"],
    ]


def test_the_cards_table_shows_the_headline_k_with_its_verdicts():
    rows = [("r1", "bm25", 1, True, 3.0, 0.004), ("r1", "bm25", 10, True, 2.0, 0.3), ("r1", "dense", 1, True, 1.0, 0.2)]
    body = dialect_card(_warehouse(rows), run_id="r1", n_runs=3)
    assert "Recall@1" in body and "Latest run <code>r1</code>; 2 earlier runs" in body
    assert [(c[0], c[3], c[-1]) for c in _cells(body)] == [("bm25", "+3.0", "yes"), ("dense", "+1.0", "no")]
    payload = re.search(r'class="table-data">(.*?)</script>', body).group(1)
    download = list(csv.DictReader(io.StringIO(json.loads(payload))))
    assert [(d["retriever"], d["k"], float(d["p_adjusted"])) for d in download] == [
        ("bm25", "1", 0.004),
        ("dense", "1", 0.2),
    ]


def test_no_card_without_a_run_or_highlighted_rows():
    assert dialect_card(_warehouse([])) is None
    assert dialect_card(_warehouse([("r1", "bm25", 5, False, 4.0, 0.001)]), run_id="r1") is None


def test_a_card_without_its_number_of_runs_names_no_earlier_run():
    body = dialect_card(_warehouse([("r1", "bm25", 10, True, 2.0, 0.02)]), run_id="r1")
    assert "Latest run <code>r1</code>.</p>" in body


def test_rows_stored_without_their_alpha_are_read_at_the_runs_recorded_policy():
    parameters = '{"settings": {"verdicts": {"alpha": 0.01, "adjustment": "bh"}}}'
    con = _warehouse([("r1", "bm25", 10, True, 2.0, 0.02)], alpha=None, parameters=parameters)
    assert "α = 0.01." in _sentence_of(dialect_card(con)) and "α = 0.05" not in _sentence_of(dialect_card(con))


def test_a_run_of_several_pair_sets_reads_the_first_and_says_so():
    rows = [
        ("r1", "bm25", 10, True, 2.0, 0.02),
        ("r1", "dense", 10, True, -1.0, 0.5),
        ("r1", "bm25", 10, True, 9.0, 0.001, "other_pairs", "nigerian"),
        ("r1", "dense", 1, True, 7.0, 0.002, "other_pairs", "nigerian"),
    ]
    body = dialect_card(_warehouse(rows))
    verdict = _sentence_of(body)
    assert verdict.startswith("No evidence of a difference between sae and aae\nrewrite: 0 of 2 highlighted")
    assert "over k = 10, α = 0.01" in verdict and "nigerian" not in body
    assert "in 1 of 2 comparisons, and only from 4.0 to 4.0 points up." in verdict
    note = "Recall@10, pair set dialect_pairs (the first of 2; each has its section on the study&#x27;s page)"
    assert note in body and [c[0] for c in _cells(body)] == ["bm25", "dense"]
