"""The WEAT card read against planted rows (no polars: mutmut's forked workers run it, docs/testing.md).

The rows plant what a slip would show: an earlier run and another test set's interval, a skipped
test with the largest stored d, a significant test that is neither the first row nor the largest
|d| of all, six computed tests (the table shows five), a negative d, two embeddings, the rows'
stored alpha against the run's recorded one, and the word-set sensitivity of the strongest test.
"""

from __future__ import annotations

import csv
import io
import json
import re

import duckdb

from biaswh.dashboards.weat.card import weat_card, weat_verdict

COLUMNS = (
    "run_id varchar, embedding varchar, test_set varchar, test varchar, status varchar, effect_size double,"
    " p_value double, p_adjusted double, adjustment varchar, alpha double, is_significant boolean"
)


def _warehouse(rows: list[tuple], *, alpha_column: bool = True, parameters: str = "{}") -> duckdb.DuckDBPyConnection:
    """``rows``: (run, embedding, test, status, d, p_adjusted, significant); each interval is d ± 0.25."""
    con = duckdb.connect()
    con.execute("create schema marts; create schema analysis")
    con.execute(
        "create table marts.dim_runs as select * from (values ('r1', 'weat', 'succeeded', timestamp '2026-01-02', ?),"
        " ('r0', 'weat', 'succeeded', timestamp '2026-01-01', '{}')) as runs(run_id, run_name, run_status,"
        " started_at, parameters), lateral (select parameters::json as run_parameters)",
        [parameters],
    )
    columns = COLUMNS if alpha_column else COLUMNS.replace(" alpha double,", "")
    con.execute(f"create table analysis.weat_interpretations ({columns})")
    con.execute(
        "create table marts.fct_weat_results (run_id varchar, embedding varchar, test_set varchar, test varchar,"
        " ci_low double, ci_high double)"
    )
    for run, embedding, test, status, d, p, significant in rows:
        stored = [run, embedding, "s", test, status, d, p and p / 3, p, "Holm", 0.01, significant]
        if not alpha_column:
            del stored[-2]
        con.execute(f"insert into analysis.weat_interpretations values ({', '.join('?' * len(stored))})", stored)
        low, high = (None, None) if d is None else (d - 0.25, d + 0.25)
        con.execute("insert into marts.fct_weat_results values (?, ?, 's', ?, ?, ?)", [run, embedding, test, low, high])
        # the same test in another test set: an interval a join on (embedding, test) alone would add
        con.execute("insert into marts.fct_weat_results values (?, ?, 'other', ?, -9, 9)", [run, embedding, test])
    return con


ROWS = [
    ("r0", "glove", "weat9", "computed", 3.0, 0.001, True),  # an earlier run
    ("r1", "glove", "weat7", "insufficient_coverage", None, None, None),
    ("r1", "glove", "weat1", "computed", 1.2, 0.2, False),
    ("r1", "glove", "weat2", "computed", -0.9, 0.004, True),
    ("r1", "glove", "weat3", "computed", 0.5, 0.003, True),
    ("r1", "fasttext", "weat1", "computed", 0.4, 0.3, False),
    ("r1", "fasttext", "weat2", "computed", 0.3, 0.5, False),
    ("r1", "fasttext", "weat3", "computed", -0.1, 0.9, False),
]


def _cells(body: str) -> list[list[str]]:
    rows = [re.findall(r"<td[^>]*>(.*?)</td>", tr) for tr in re.findall(r"<tr>(.*?)</tr>", body, flags=re.S)]
    return [r for r in rows if r]


def test_the_card_reads_the_latest_runs_tests_by_their_largest_d_and_counts_each_embedding():
    body = weat_card(_warehouse(ROWS))
    assert body.startswith(
        '<p class="verdict"><b>0 of 3 WEAT tests significant after Holm within embedding fasttext, α = 0.01; 2 of 3'
        " WEAT tests significant after Holm within embedding glove, α = 0.01</b>; strongest: weat2 on glove,"
        " d = -0.9 (large; 95% CI [-1.15, -0.65], adjusted p = 0.0040). 1 test not computed (insufficient"
        ' coverage).</p><p class="note">Largest effects</p>'
    )
    header = [re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<th[^>]*>(.*?)</th>", body, flags=re.S)]
    assert header == ["test", "embedding", "d", "magnitude", "95% CI", "adjusted p", "significant"]
    assert _cells(body) == [
        ["weat1", "glove", "1.2", "large", "[0.95, 1.45]", "0.20", "no"],
        ["weat2", "glove", "-0.9", "large", "[-1.15, -0.65]", "0.0040", "yes"],
        ["weat3", "glove", "0.5", "medium", "[0.250, 0.750]", "0.0030", "yes"],
        ["weat1", "fasttext", "0.4", "small", "[0.150, 0.650]", "0.30", "no"],
        ["weat2", "fasttext", "0.3", "small", "[0.050, 0.550]", "0.50", "no"],
    ]
    payload = re.search(r'class="table-data">(.*?)</script>', body).group(1)
    download = list(csv.DictReader(io.StringIO(json.loads(payload))))
    assert [(d["test"], d["embedding"], round(float(d["ci_low"]), 6)) for d in download] == [
        ("weat1", "glove", 0.95), ("weat2", "glove", -1.15), ("weat3", "glove", 0.25), ("weat1", "fasttext", 0.15),
        ("weat2", "fasttext", 0.05),
    ]  # fmt: skip
    assert body.endswith("Latest run <code>r1</code>; 1 earlier run of this study in its page's run selector.</p>")


def test_a_named_run_without_a_significant_test_is_no_evidence_and_ties_break_by_embedding_then_test():
    rows = [
        ("r0", "glove", "weat2", "computed", -0.3, 0.5, False),
        ("r0", "glove", "weat1", "computed", 0.3, 0.4, False),
        ("r0", "bert", "weat1", "computed", 0.3, 0.6, False),
    ]
    body = weat_card(_warehouse(rows), run_id="r0", n_runs=4)
    verdict = re.search(r'<p class="verdict">(.*?)</p>', body).group(1)
    assert verdict == (
        "<b>No evidence of an association</b>: 0 of 1 WEAT tests significant after Holm within embedding bert,"
        " α = 0.01; 0 of 2 WEAT tests significant after Holm within embedding glove, α = 0.01."
    )
    assert [cell[:2] for cell in _cells(body)] == [["weat1", "bert"], ["weat1", "glove"], ["weat2", "glove"]]
    assert "Latest run <code>r0</code>; 3 earlier runs" in body


def test_no_card_without_a_run_and_a_run_without_a_computed_test_says_so():
    assert weat_card(duckdb.connect()) is None
    body = weat_card(_warehouse([("r1", "glove", "weat1", "insufficient_coverage", None, None, None)]))
    assert body == (
        '<p class="verdict"><b>No test was computed.</b> 1 test not computed (insufficient coverage).</p>'
        '<p class="note">Latest run <code>r1</code>.</p>'
    )


def test_rows_stored_without_their_alpha_are_read_at_the_runs_recorded_alpha():
    parameters = '{"settings": {"verdicts": {"alpha": 0.1}}}'
    rows = [("r1", "glove", "weat1", "computed", 0.8, 0.07, True)]
    body = weat_card(_warehouse(rows, alpha_column=False, parameters=parameters))
    assert "1 of 1 WEAT tests significant after Holm within embedding glove, α = 0.1</b>" in body


def test_the_strongest_significant_test_names_its_word_set_sensitivity():
    con = _warehouse(ROWS)
    con.execute(
        "create table marts.fct_weat_metrics as select * from (values ('r1', 'glove', 'weat2', 'd_word_sets',"
        " 'computed', -1.4, -0.2), ('r1', 'glove', 'weat3', 'd_word_sets', 'computed', 0.1, 0.9))"
        " as metrics(run_id, embedding, test, metric, status, ci_low, ci_high)"
    )
    body = weat_card(con)
    assert "(insufficient coverage). Resampling the words of all four sets moves d within [-1.40, -0.20].</p>" in body


def test_the_verdict_takes_each_embeddings_stored_adjustment_or_holm():
    rows = [
        {"embedding": "glove", "status": "computed", "is_significant": False, "adjustment": None, "effect_size": 0.1},
        {"embedding": "glove", "status": "computed", "is_significant": False, "adjustment": "BH", "effect_size": 0.2},
        {"embedding": "bert", "status": "computed", "is_significant": False, "adjustment": "BH", "effect_size": 0.3},
    ]
    assert weat_verdict(rows, alpha=0.05) == (
        "<b>No evidence of an association</b>: 0 of 1 WEAT tests significant after BH within embedding bert,"
        " α = 0.05; 0 of 2 WEAT tests significant after Holm within embedding glove, α = 0.05."
    )


def test_a_named_run_without_its_number_of_runs_names_no_earlier_run():
    assert weat_card(_warehouse(ROWS), run_id="r1").endswith('<p class="note">Latest run <code>r1</code>.</p>')


def test_an_interval_that_misses_its_estimate_keeps_the_estimates_decimals():
    # a bootstrap percentile interval of a d near its bound of 2 can miss it: the bounds get d's 2 decimals
    con = _warehouse([("r1", "glove", "weat1", "computed", 1.9, 0.002, True)])
    con.execute("update marts.fct_weat_results set ci_low = 0.35, ci_high = 0.98 where test_set = 's'")
    body = weat_card(con)
    assert "strongest: weat1 on glove, d = 1.9 (large; 95% CI [0.35, 0.98], adjusted p = 0.0020)." in body
    assert _cells(body) == [["weat1", "glove", "1.9", "large", "[0.35, 0.98]", "0.0020", "yes"]]
