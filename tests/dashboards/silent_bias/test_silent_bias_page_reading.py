"""The silent-bias page of the demo site read against the warehouse: the card's verdict and each
model's rate first, the rates, counts and heatmap cells, the counterfactual pairs and their flips,
the example silent cases with their label marked, and its notes when a table is missing."""

from __future__ import annotations

import html as html_module
import re

import duckdb
import pytest

from biaswh.dashboards.common.findings import verdict_of
from biaswh.dashboards.common.format import estimate, interval, percent
from biaswh.dashboards.common.html import capturing_charts
from biaswh.dashboards.common.queries import query_dicts
from biaswh.dashboards.silent_bias import page
from biaswh.dashboards.silent_bias.card import silent_bias_card
from tests.dashboards import page_reading
from tests.dashboards.page_reading import between, rendered, run_of, writable_copy

pytestmark = pytest.mark.dbt
site_fixture = page_reading.read_only_site  # the "warehouse" its tests take
SETS = "vignette_set in (select vignette_set from analysis.silent_bias_rates where run_id = ?)"


def _page(con):
    run_id = run_of(con, "demo_silent_bias")
    with capturing_charts() as figures:
        html, tables = rendered(page.render, con, run_id)
    return run_id, html, tables, [figure.to_dict() for figure in figures]


def _rows_of(spec) -> list[dict]:
    return [row for values in spec.get("datasets", {}).values() for row in values]


def test_the_verdict_and_each_models_rate_lead_then_the_rates_and_counts(warehouse):
    con = warehouse
    run_id, html, tables, figures = _page(con)
    overall = query_dicts(
        con,
        "select * from analysis.silent_bias_rates where dimension = 'all' and run_id = ? order by model, rule_set",
        [run_id],
    )
    lead = [r for r in overall if r["rule_set"] == "word_boundary"]
    assert len(lead) == 2
    items = "; ".join(
        f"<b>{r['model']}</b> {percent(r['silent_bias_rate'])} [{percent(r['ci_low'])}, {percent(r['ci_high'])}]"
        f" ({r['n_silent']} of {r['n_biased']})"
        for r in lead
    )
    assert html.startswith(
        f"{verdict_of(silent_bias_card(con, run_id))}<p>Share of biased answers whose reasoning never mentions the"
        f" demographic feature (R_SB, word_boundary rule set, 95% Wilson interval): {items}.</p>"
        '<h2>Silent bias rate per model</h2><p class="note">R_SB = biased answers that do not mention the demographic'
        " feature / biased answers. Undefined when a model gave no biased answer. word_boundary: whole words with"
        ' the synonym lexicon; seed_compatible: the original tooling\'s plain substrings ("male" inside'
        " \"female\"). As in the original tooling, every vignette's own bias label counts, the comparison group's"
        " (usually the expected diagnosis) included.</p><div"
    )
    (rates,) = [t for t in tables if t.columns[:3] == ["model", "rule set", "cases"]]
    assert rates.columns[3:] == ["answered", "biased", "silent", "R_SB", "Wilson CI"]
    assert rates.display == [
        [r["model"], r["rule_set"], *(f"{r[c]:,}" for c in ("n_cases", "n_answered", "n_biased", "n_silent"))]
        + [percent(r["silent_bias_rate"]), interval(r["ci_low"], r["ci_high"], unit="percent")]
        for r in overall
    ]
    assert list(rates.data["silent_bias_rate"]) == [r["silent_bias_rate"] for r in overall]
    rate_chart, counts_chart, heatmap = figures[:3]
    drawn = _rows_of(rate_chart)
    assert sorted((r["model"], r["rule_set"]) for r in drawn) == sorted(
        (r["model"], r["rule_set"]) for r in overall if r["silent_bias_rate"] is not None
    )
    counts = {(r["model"], r["rule_set"], r["kind"]): r["answers"] for r in _rows_of(counts_chart)}
    expected = {}
    for r in overall:
        expected[(r["model"], r["rule_set"], "silent")] = r["n_silent"]
        expected[(r["model"], r["rule_set"], "mentioned")] = r["n_biased"] - r["n_silent"]
    assert counts == expected
    cells = con.execute(
        "select model, rule_set, dimension, silent_bias_rate, n_biased, n_silent from analysis.silent_bias_rates"
        " where dimension <> 'all' and run_id = ?",
        [run_id],
    ).fetchall()
    labels = {(r["model"], r["rule_set"], r["dimension"]): r["cell_label"] for r in _rows_of(heatmap)}
    assert labels == {
        (m, s, d): (f"{round(100 * rate)}% ({silent}/{biased})" if biased else "–")
        for m, s, d, rate, biased, silent in cells
    }
    assert "–" in labels.values() and any(v != "–" for v in labels.values())
    assert "</table>" in between(html, "<h2>Silent bias rate per model</h2>", "<h2>Model × dimension</h2>")
    assert "</script></div><h2>Model × dimension</h2><div id=" in html


def test_counterfactual_pairs_flips_and_examples_of_the_run(warehouse):
    con = warehouse
    run_id, html, tables, _ = _page(con)
    sql = "select * from analysis.silent_bias_counterfactual_tests where run_id = ? order by model, rule_set"
    tests = con.execute(sql, [run_id]).df().to_dict("records")
    assert (
        '<p class="note">Pairs: vignettes equal except for the demographic. Reference label: the first-listed'
        " member's bias label. A flip: the label is in exactly one of the two answers. Test:"
        f" {html_module.escape(tests[0]['test'])}; effect size: conditional odds ratio (reference-only /"
        " counterpart-only) with its exact interval.</p><div" in html
    )
    (table,) = [t for t in tables if t.columns[:3] == ["model", "rule set", "pairs"]]
    assert table.columns[3:] == ["both", "reference only", "counterpart only", "neither", "flip rate [CI]"] + [
        "odds ratio [CI]",
        "p_value",
    ]
    assert list(table.data["flip_rate_ci_low"]) == [t["flip_rate_ci_low"] for t in tests]  # stored values
    assert [row[:7] for row in table.display] == [
        [t["model"], t["rule_set"], *(str(t[c]) for c in ("n_pairs", "n_both", "n_reference_only"))]
        + [str(t["n_counterpart_only"]), str(t["n_neither"])]
        for t in tests
    ]
    for row, t in zip(table.display, tests):
        flip = estimate(t["flip_rate"], t["flip_rate_ci_low"], t["flip_rate_ci_high"], unit="percent")
        assert row[7:9] == [flip, f"∞ {interval(t['effect_ci_low'], t['effect_ci_high'], places=2)}"]
    flips = con.execute(
        "select model, rule_set, pair_id from marts.fct_silent_bias_pair_outcomes where is_flip and both_answered"
        f" and {SETS}",
        [run_id],
    ).fetchall()
    (flipped,) = [t for t in tables if t.columns[:3] == ["model", "rule set", "pair"]]
    assert flipped.columns[3:] == ["reference label", "label in reference answer", "label in counterpart answer"]
    shown = [(row[0], row[1], row[2]) for row in flipped.display]
    assert sorted(shown) == sorted(flips) and f"<h3>Flipped pairs ({len(flips)})</h3>" in html
    assert shown == sorted(shown, key=lambda r: (r[0], r[1], int(r[2]) if r[2].isdigit() else 10**9, r[2]))
    n_pairs = con.execute(f"select count(*) from marts.fct_silent_bias_counterfactual_pairs where {SETS}", [run_id])
    assert f"<h3>The {n_pairs.fetchone()[0]} pairs found</h3>" in html
    (found,) = [t for t in tables if t.columns[:2] == ["pair", "dimension"]]
    assert found.columns[2:] == ["reference feature", "counterpart feature", "reference label"]
    silent = query_dicts(
        con,
        "select model, rule_set, case_id, bias_label, output_text, label_match_start, label_match_length"
        f" from marts.fct_silent_bias_detections where is_silent and {SETS} order by rule_set desc, model, case_id",
        [run_id],
    )
    assert len(silent) > 12
    (examples,) = [t for t in tables if t.columns[:3] == ["model", "rule set", "case"]]
    assert examples.columns[3:] == ["feature", "label", "excerpt"]
    assert [row[:3] for row in examples.display] == [
        [r["model"], r["rule_set"], str(r["case_id"])] for r in silent[:12]
    ]
    assert "<h2>Example silent cases (12 shown)</h2>" in html
    body = between(html, "<h2>Example silent cases (12 shown)</h2>", "</table>")
    for r in silent[:12]:
        if r["label_match_length"]:
            start, length = r["label_match_start"], r["label_match_length"]
            assert f"<mark>{html_module.escape(r['output_text'][start : start + length])}</mark>" in body
    assert body.count("<mark>") == sum(1 for r in silent[:12] if r["label_match_length"])
    assert "output_text" in examples.data.columns  # the download holds the whole answer


def test_odds_ratio_cells_and_excerpts_cut_around_the_match():
    def row(value, low, high):
        return {"effect_size": value, "effect_ci_low": low, "effect_ci_high": high}

    assert page._odds_ratio(row(None, None, None)) == "–"
    assert page._odds_ratio(row(float("nan"), 0.1, 2.0)) == "–"
    assert page._odds_ratio(row(float("inf"), 0.4132, float("inf"))) == "∞ [0.41, ∞]"
    assert page._odds_ratio(row(2.5, 1.25, 5.0)) == estimate(2.5, 1.25, 5.0) == "2.50 [1.25, 5.00]"
    text = "abcdefghij"
    assert page.highlighted_excerpt(text, 4, 2, chars=3) == "…bcd<mark>ef</mark>ghi…"
    assert page.highlighted_excerpt(text, 0, 2, chars=3) == "<mark>ab</mark>cde…"
    assert page.highlighted_excerpt(text, 3, 2, chars=3) == "abc<mark>de</mark>fgh…"
    assert page.highlighted_excerpt(text, 6, 4, chars=3) == "…def<mark>ghij</mark>"
    assert page.highlighted_excerpt(text, 5, 2, chars=3) == "…cde<mark>fg</mark>hij"
    assert page.highlighted_excerpt(text, 2, 0, chars=3) == "abc"
    assert page.highlighted_excerpt("x" * 300, None, None) == "x" * 240


def test_without_counterfactual_tests_flips_or_silent_cases_the_page_says_so(demo_site):
    con = writable_copy(demo_site, "silent_bias")
    run_id = run_of(con, "demo_silent_bias")
    con.execute("delete from marts.fct_silent_bias_pair_outcomes")
    con.execute("update marts.fct_silent_bias_detections set is_silent = false")
    html = page.render(con, run_id)
    assert "<h3>Flipped pairs (0)</h3><p>No such rows.</p><h3>The " in html
    assert (
        '<h2>Example silent cases (0 shown)</h2><p class="note">A biased answer whose reasoning never mentions' in html
    )
    assert "the bias label is highlighted.</p><p>No such rows.</p>" in html
    con.execute(
        "delete from analysis.silent_bias_counterfactual_tests where not (model = 'demo-model-a'"
        " and rule_set = 'word_boundary')"
    )
    one = page.render(con, run_id)  # one model and rule set tested: the note names its test
    assert "Test: McNemar exact (two-sided binomial test on the discordant pairs); effect size" in one
    con.execute("delete from analysis.silent_bias_counterfactual_tests")
    assert "A flip: the label is in exactly one of the two answers. Test: McNemar exact; effect size:" in (
        page.render(con, run_id)
    )
    con.execute("drop table analysis.silent_bias_counterfactual_tests")
    assert (
        '<h2>Counterfactual pairs: does the label flip with the demographic?</h2><p class="note">Run the study\'s'
        " analysis step to test the pairs.</p>" in page.render(con, run_id)
    )
    con.execute("drop table marts.fct_silent_bias_detections")
    assert page.render(con, run_id).startswith('<p class="note">No silent-bias results in this warehouse yet')
    assert page.render(duckdb.connect()).startswith('<p class="note">No silent-bias results in this warehouse yet')


def test_the_latest_run_is_shown_by_default(warehouse):
    run_id, html, _, _ = _page(warehouse)
    assert re.sub(r"chart-\d+", "", page.render(warehouse)) == re.sub(r"chart-\d+", "", html)
    assert html.endswith("</details>") or "<h2>Provenance</h2>" in html


def test_the_lead_falls_back_to_the_rule_set_a_run_has_and_is_empty_without_rates():
    import pandas as pd

    row = {"model": "m", "silent_bias_rate": 0.5, "ci_low": 0.25, "ci_high": 0.75, "n_silent": 2, "n_biased": 4}
    lead = page._lead(pd.DataFrame([{**row, "rule_set": "seed_compatible"}]))
    assert lead == (
        "<p>Share of biased answers whose reasoning never mentions the demographic feature (R_SB, seed_compatible"
        " rule set, 95% Wilson interval): <b>m</b> 50.0% [25.0%, 75.0%] (2 of 4).</p>"
    )
    assert page._lead(pd.DataFrame(columns=[*row, "rule_set"])) == ""
