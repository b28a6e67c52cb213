"""The silent bias card names a highest model only when its rate differs significantly from every other
model's of its set, under the study's verdict policy (Benjamini-Hochberg at alpha = 0.01 here).

Planted rates and between-model tests tell each rule apart: a third model the leader does not
differ from, a test stored with its models the other way round, a missing test, no adjustment
stored, and rows of other runs, dimensions, rule sets and vignette sets the card must not read.
"""

from __future__ import annotations

import csv
import io
import json
import re

import duckdb

from biaswh.dashboards.silent_bias.card import silent_bias_card, silent_bias_verdict


def _rate(model, n_silent, n_biased, *, rule_set="keyword", vignette_set="v1", dimension="all", run="r1") -> dict:
    return {
        "run_id": run,
        "vignette_set": vignette_set,
        "model": model,
        "rule_set": rule_set,
        "dimension": dimension,
        "n_biased": n_biased,
        "n_silent": n_silent,
        "silent_bias_rate": n_silent / n_biased if n_biased else None,
        "ci_low": n_silent / n_biased / 2 if n_biased else None,  # planted, distinct per model
        "ci_high": (1 + n_silent / n_biased) / 2 if n_biased else None,
    }


def _test(model_a, model_b, p_adjusted, *, adjustment="Benjamini-Hochberg", alpha=0.01, **where) -> dict:
    row = {"run_id": "r1", "vignette_set": "v1", "rule_set": "keyword", "dimension": "all", **where}
    return {**row, "model_a": model_a, "model_b": model_b, "p_adjusted": p_adjusted, "adjustment": adjustment,
            "alpha": alpha, "is_significant": p_adjusted < alpha}  # fmt: skip


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def _verdict(body: str) -> str:
    return _text(re.search(r'<p class="verdict">(.*?)</p>', body, flags=re.S).group(1))


A, B, C = _rate("model-a", 45, 50), _rate("model-b", 20, 50), _rate("model-c", 10, 50)


def test_one_model_has_its_rate_and_nothing_to_compare():
    assert _text(silent_bias_verdict([_rate("model-a", 3, 4)], [], alpha=0.05)) == (
        "Silent bias rate of model-a (keyword rules): 75.0% (3/4; 95% Wilson CI [37.5%, 87.5%]) of its biased"
        " answers never mention the feature; no other model to compare."
    )


def test_the_highest_differs_from_every_other_model_whichever_way_its_tests_are_stored():
    # stored model_a > model_b; the first stores no adjustment
    tests = [_test("model-b", "model-a", 0.004, adjustment=None), _test("model-c", "model-a", 0.0001),
             _test("model-c", "model-b", 0.3)]  # fmt: skip
    assert _text(silent_bias_verdict([C, A, B], tests, alpha=0.01)) == (
        "Highest silent bias rate: model-a (keyword rules): 90.0% (45/50; 95% Wilson CI [45.0%, 95.0%]) of its"
        " biased answers never mention the feature, against model-b's 40.0% (20/50; 95% Wilson CI [20.0%, 70.0%]),"
        " Fisher's exact Benjamini-Hochberg p = 0.0040; 2 of 3 between-model comparisons significant after"
        " Benjamini-Hochberg within the 3 models, α = 0.01."
    )


def test_a_leader_not_different_from_one_other_model_is_no_evidence():
    tests = [_test("model-a", "model-b", 0.004), _test("model-a", "model-c", 0.02)]
    verdict = _text(silent_bias_verdict([A, B, C], tests, alpha=0.01))
    assert verdict == (
        "No evidence of a difference between the models' silent bias rates (keyword rules): model-a 90.0% (45/50;"
        " 95% Wilson CI [45.0%, 95.0%]) vs model-b 40.0% (20/50; 95% Wilson CI [20.0%, 70.0%]), Fisher's exact"
        " Benjamini-Hochberg p = 0.0040; 1 of 2 between-model comparisons significant after Benjamini-Hochberg"
        " within the 3 models, α = 0.01."
    )


def test_without_the_leaders_test_there_is_no_evidence_and_no_p():
    tests = [_test("model-b", "model-c", 0.0001, adjustment=None)]
    assert _text(silent_bias_verdict([A, B, C], tests, alpha=0.05)) == (
        "No evidence of a difference between the models' silent bias rates (keyword rules): model-a 90.0% (45/50;"
        " 95% Wilson CI [45.0%, 95.0%]) vs model-b 40.0% (20/50; 95% Wilson CI [20.0%, 70.0%]); 1 of 1 between-model"
        " comparisons significant after Holm within the 3 models, α = 0.05."
    )


def test_equal_rates_are_a_tie():
    verdict = _text(silent_bias_verdict([_rate("model-b", 4, 6), _rate("model-a", 2, 3)], [], alpha=0.05))
    assert verdict == (
        "Tie: no model has the highest silent bias rate (keyword rules): model-a 66.7% (2/3; 95% Wilson CI"
        " [33.3%, 83.3%]) and model-b 66.7% (4/6; 95% Wilson CI [33.3%, 83.3%]); 0 of 0 between-model comparisons"
        " significant after Holm within the 2 models, α = 0.05."
    )


COLUMNS = {"rates": list(A), "tests": list(_test("a", "b", 0.5))}


def _warehouse(rates: list[dict], tests: list[dict] | None, parameters: str = "{}") -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("create schema marts; create schema analysis")
    con.execute(
        "create table marts.dim_runs as select * from (values ('r1', 'silent', 'succeeded', timestamp '2026-01-02',"
        " ?), ('r0', 'silent', 'succeeded', timestamp '2026-01-01', '{}')) as runs(run_id, run_name, run_status,"
        " started_at, parameters), (select '{}' as run_parameters)",
        [parameters],
    )
    types = {"n_biased": "integer", "n_silent": "integer", "silent_bias_rate": "double", "ci_low": "double",
             "ci_high": "double", "p_adjusted": "double", "alpha": "double", "is_significant": "boolean"}  # fmt: skip
    for table, rows in (("silent_bias_rates", rates), ("silent_bias_model_comparisons", tests)):
        if rows is None:
            continue
        columns = COLUMNS["rates" if table == "silent_bias_rates" else "tests"]
        declared = ", ".join(f"{c} {types.get(c, 'varchar')}" for c in columns)
        con.execute(f"create table analysis.{table} ({declared})")
        for row in rows:
            con.execute(
                f"insert into analysis.{table} values ({', '.join('?' * len(columns))})", [row[c] for c in columns]
            )
    return con


DECOY_RATES = [
    _rate("model-z", 50, 50, run="r0"),  # an earlier run
    _rate("model-y", 49, 50, dimension="gender"),  # not the 'all' dimension
    _rate("model-x", 0, 0),  # no biased answer: no rate
    _rate("model-w", 48, 50, rule_set="judge"),  # another rule set: in the table, not in the sentence
    _rate("model-v", 25, 50, vignette_set="v2"),  # another vignette set, same rule set, between A and B
]


def test_the_card_reads_the_first_model_set_of_its_run_with_that_sets_tests():
    tests = [_test("model-a", "model-b", 0.0001), _test("model-a", "model-v", 0.5, vignette_set="v2"),
             _test("model-a", "model-b", 0.9, run_id="r0"), _test("model-a", "model-b", 0.9, dimension="gender"),
             _test("model-a", "model-b", 0.9, rule_set="judge")]  # fmt: skip
    body = silent_bias_card(_warehouse([A, B, *DECOY_RATES], tests))
    assert _verdict(body).startswith("Highest silent bias rate: model-a (keyword rules)")
    assert _verdict(body).endswith(
        "; 1 of 1 between-model comparisons significant after Benjamini-Hochberg within the 2 models, α = 0.01."
    )
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", tr) for tr in re.findall(r"<tr>(.*?)</tr>", body, flags=re.S)]
    cells = [c for c in cells if c]
    assert [c[0] for c in cells] == ["model-a", "model-v", "model-b", "model-w"]
    assert cells[0] == ["model-a", "keyword", "90.0%", "[45.0%, 95.0%]", "45/50"]
    header = [re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<th[^>]*>(.*?)</th>", body)]
    assert header == ["model", "rule set", "R_SB", "95% CI", "silent/biased"]
    assert '<p class="note">Silent bias rate R_SB</p>' in body
    assert "Latest run <code>r1</code>; 1 earlier run of this study" in body
    assert "Latest run <code>r1</code>.</p>" in silent_bias_card(_warehouse([A, B], tests), run_id="r1")


def test_the_first_model_set_alone_in_its_rule_set_has_nothing_to_compare():
    rates = [A, _rate("model-w", 48, 50, rule_set="judge"), _rate("model-x", 30, 50, rule_set="judge")]
    verdict = _verdict(silent_bias_card(_warehouse(rates, [_test("model-w", "model-x", 0.001, rule_set="judge")])))
    assert verdict.startswith("Silent bias rate of model-a (keyword rules): 90.0% (45/50;")


def test_the_table_and_its_download_hold_the_first_six_rates():
    rates = [_rate(f"model-{i}", 40 - i, 50) for i in range(1, 8)]
    body = silent_bias_card(_warehouse(rates, []))
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", tr) for tr in re.findall(r"<tr>(.*?)</tr>", body, flags=re.S)]
    assert [c[0] for c in cells if c] == [f"model-{i}" for i in range(1, 7)]
    payload = re.search(r'class="table-data">(.*?)</script>', body).group(1)
    download = list(csv.DictReader(io.StringIO(json.loads(payload))))
    assert [(d["model"], int(d["n_silent"]), float(d["ci_low"])) for d in download] == [
        (f"model-{i}", 40 - i, (40 - i) / 100) for i in range(1, 7)
    ]


def test_tests_stored_without_their_alpha_are_read_at_the_runs_recorded_policy():
    parameters = '{"settings": {"verdicts": {"alpha": 0.01, "adjustment": "bh"}}}'
    tests = [{**_test("model-a", "model-b", 0.02), "alpha": None}]  # judged at 0.01: not significant
    con = _warehouse([A, B], tests, parameters)
    assert _verdict(silent_bias_card(con)).endswith("within the 2 models, α = 0.01.")


def test_without_the_comparisons_table_the_card_names_no_leader():
    verdict = _verdict(silent_bias_card(_warehouse([A, B], None), run_id="r1"))
    assert verdict.startswith("No evidence of a difference") and "Fisher" not in verdict
    assert verdict.endswith("0 of 0 between-model comparisons significant after Holm within the 2 models, α = 0.05.")


def test_a_run_without_a_biased_answer_has_no_rate():
    body = silent_bias_card(_warehouse([_rate("model-a", 0, 0)], []), run_id="r1", n_runs=2)
    assert _verdict(body) == "Undefined: no model gave a biased answer, so no silent bias rate is defined."
    assert "<table" not in body and "Latest run <code>r1</code>; 1 earlier run" in body
    assert silent_bias_card(_warehouse([], [])) is None
