"""Dashboard page: silent bias rates with intervals, the model x dimension heatmap, counterfactual
flips, where the two rule sets disagree, and example silent cases with the bias label highlighted."""

from __future__ import annotations

import math

import duckdb

from biaswh.dashboards.common.findings import verdict_of
from biaswh.dashboards.common.format import MISSING, estimate, interval, is_missing, percent
from biaswh.dashboards.common.html import chart, table, text
from biaswh.dashboards.common.provenance import provenance_section
from biaswh.dashboards.common.queries import id_order, query_dicts, relation_exists
from biaswh.dashboards.common.site import register_page
from biaswh.dashboards.silent_bias.card import RUNS, silent_bias_card
from biaswh.dashboards.silent_bias.charts import (
    biased_and_silent_counts_chart,
    silent_bias_heatmap_chart,
    silent_bias_rate_chart,
)
from biaswh.dashboards.silent_bias.comparisons import model_comparisons_section
from biaswh.dashboards.silent_bias.tables import SETS_OF_RUN, disagreements_section, models_section

EXCERPT_CHARS = 240
N_EXAMPLES = 12


def _odds_ratio(row: dict) -> str:
    """The conditional odds ratio with its exact interval; "–" when no pair flipped either way."""
    value = row["effect_size"]
    if is_missing(value):
        return MISSING
    if math.isinf(value):
        return f"∞ {interval(row['effect_ci_low'], row['effect_ci_high'], places=2)}"
    return estimate(value, row["effect_ci_low"], row["effect_ci_high"])


def highlighted_excerpt(output: str, start: int | None, length: int | None, *, chars: int = EXCERPT_CHARS) -> str:
    """An escaped excerpt around the label match the mart found (``label_match_start``/``_length``).

    The rule that finds the label lives once, in dbt (``fct_silent_bias_detections``); the page
    only cuts the text there. Each piece is escaped on its own before the <mark> is added.
    """
    if start is None or not length:
        return text(output[:chars])
    end_of_match = start + length
    first, last = max(0, start - chars), min(len(output), end_of_match + chars)
    before = ("…" if first else "") + output[first:start]
    after = output[end_of_match:last] + ("…" if last < len(output) else "")
    return f"{text(before)}<mark>{text(output[start:end_of_match])}</mark>{text(after)}"


def _rates_section(con, run_id: str) -> list[str]:
    overall = con.execute(
        "select * from analysis.silent_bias_rates where dimension = 'all' and run_id = ? order by model, rule_set",
        [run_id],
    ).df()
    parts = [
        "<h2>Silent bias rate per model</h2>",
        '<p class="note">R_SB = biased answers that do not mention the demographic feature / biased answers. '
        "Undefined when a model gave no biased answer. word_boundary: whole words with the synonym lexicon; "
        'seed_compatible: the original tooling\'s plain substrings ("male" inside "female"). As in the original '
        "tooling, every vignette's own bias label counts, the comparison group's (usually the expected "
        "diagnosis) included.</p>",
    ]
    parts.insert(0, _lead(overall))
    defined = overall[overall["silent_bias_rate"].notna()]
    if len(defined):
        parts.append(chart(silent_bias_rate_chart(defined)))
    counts = overall.melt(
        id_vars=["model", "rule_set"], value_vars=["n_silent", "n_biased"], var_name="kind", value_name="answers"
    )
    counts = counts.pivot_table(index=["model", "rule_set"], columns="kind", values="answers").reset_index()
    counts["mentioned"] = counts["n_biased"] - counts["n_silent"]
    counts = counts.rename(columns={"n_silent": "silent"}).melt(
        id_vars=["model", "rule_set"], value_vars=["silent", "mentioned"], var_name="kind", value_name="answers"
    )
    parts.append(chart(biased_and_silent_counts_chart(counts)))
    rows = [
        [
            r["model"],
            r["rule_set"],
            r["n_cases"],
            r["n_answered"],
            r["n_biased"],
            r["n_silent"],
            percent(r["silent_bias_rate"]),
            interval(r["ci_low"], r["ci_high"], unit="percent"),
        ]
        for r in overall.to_dict("records")
    ]
    columns = ["model", "rule set", "cases", "answered", "biased", "silent", "R_SB", "Wilson CI"]
    parts.append(table(columns, rows, data=overall))
    cells = con.execute(
        "select model, rule_set, dimension, silent_bias_rate, n_biased, n_silent"
        " from analysis.silent_bias_rates where dimension <> 'all' and run_id = ?",
        [run_id],
    ).df()
    cells["cell_label"] = [
        f"{percent(r, 0)} ({s}/{b})" if b else MISSING
        for r, s, b in zip(cells["silent_bias_rate"], cells["n_silent"], cells["n_biased"])
    ]
    parts += ["<h2>Model × dimension</h2>", chart(silent_bias_heatmap_chart(cells))]
    return parts


def _lead(overall) -> str:
    """The finding first: each model's silent bias rate under the recommended rule set, with its interval."""
    rows = overall[overall["rule_set"] == "word_boundary"].to_dict("records") or overall.to_dict("records")
    if not rows:
        return ""
    rule_set = rows[0]["rule_set"]
    items = "; ".join(
        f"<b>{text(r['model'])}</b> {percent(r['silent_bias_rate'])} "
        f"[{percent(r['ci_low'])}, {percent(r['ci_high'])}] ({r['n_silent']} of {r['n_biased']})"
        for r in rows
    )
    return (
        f"<p>Share of biased answers whose reasoning never mentions the demographic feature "
        f"(R_SB, {text(rule_set)} rule set, 95% Wilson interval): {items}.</p>"
    )


def _counterfactual_section(con, run_id: str) -> list[str]:
    parts = ["<h2>Counterfactual pairs: does the label flip with the demographic?</h2>"]
    if not relation_exists(con, "analysis", "silent_bias_counterfactual_tests"):
        return parts + ['<p class="note">Run the study\'s analysis step to test the pairs.</p>']
    tests = query_dicts(
        con,
        "select * from analysis.silent_bias_counterfactual_tests where run_id = ? order by model, rule_set",
        [run_id],
    )
    rows = [
        [
            t["model"],
            t["rule_set"],
            t["n_pairs"],
            t["n_both"],
            t["n_reference_only"],
            t["n_counterpart_only"],
            t["n_neither"],
            estimate(t["flip_rate"], t["flip_rate_ci_low"], t["flip_rate_ci_high"], unit="percent"),
            _odds_ratio(t),
            t["p_value"],
        ]
        for t in tests
    ]
    parts.append(
        '<p class="note">Pairs: vignettes equal except for the demographic. Reference label: the '
        "first-listed member's bias label. A flip: the label is in exactly one of the two answers. "
        f"Test: {text(tests[0]['test']) if tests else 'McNemar exact'}; effect size: conditional odds "
        "ratio (reference-only / counterpart-only) with its exact interval.</p>"
    )
    parts.append(
        table(
            [
                "model",
                "rule set",
                "pairs",
                "both",
                "reference only",
                "counterpart only",
                "neither",
                "flip rate [CI]",
                "odds ratio [CI]",
                "p_value",
            ],
            rows,
            data=tests,
        )
    )
    return parts + _flipped_pairs(con, run_id) + _pairs_found(con, run_id)


def _flipped_pairs(con, run_id: str) -> list[str]:
    """The answered pairs whose label is in exactly one of the two answers."""
    flips = query_dicts(
        con,
        "select model, rule_set, pair_id, reference_label, label_in_reference, label_in_counterpart"
        f" from marts.fct_silent_bias_pair_outcomes where is_flip and both_answered and {SETS_OF_RUN}"
        f" order by model, rule_set, {id_order('pair_id')}",
        [run_id],
    )
    return [
        f"<h3>Flipped pairs ({len(flips)})</h3>",
        table(
            [
                "model",
                "rule set",
                "pair",
                "reference label",
                "label in reference answer",
                "label in counterpart answer",
            ],
            [list(f.values()) for f in flips],
        )
        if flips
        else "<p>No such rows.</p>",
    ]


def _pairs_found(con, run_id: str) -> list[str]:
    """Every counterfactual pair the run's vignette sets hold."""
    pairs = query_dicts(
        con,
        "select pair_id, dimension, reference_feature, counterpart_feature, reference_label"
        f" from marts.fct_silent_bias_counterfactual_pairs where {SETS_OF_RUN}"
        f" order by vignette_set, {id_order('pair_id')}",
        [run_id],
    )
    return [
        f"<h3>The {len(pairs)} pairs found</h3>",
        table(
            ["pair", "dimension", "reference feature", "counterpart feature", "reference label"],
            [list(p.values()) for p in pairs],
        ),
    ]


def _examples_section(con, run_id: str) -> list[str]:
    rows = query_dicts(
        con,
        "select model, rule_set, case_id, bias_feature, bias_label, output_text, label_match_start,"
        f" label_match_length from marts.fct_silent_bias_detections where is_silent and {SETS_OF_RUN}"
        f" order by rule_set desc, model, case_id limit {N_EXAMPLES}",
        [run_id],
    )
    parts = [
        f"<h2>Example silent cases ({len(rows)} shown)</h2>",
        '<p class="note">A biased answer whose reasoning never mentions the feature;'
        " the bias label is highlighted.</p>",
    ]
    body = [
        [
            r["model"],
            r["rule_set"],
            r["case_id"],
            r["bias_feature"],
            r["bias_label"],
            highlighted_excerpt(r["output_text"], r["label_match_start"], r["label_match_length"]),
        ]
        for r in rows
    ]
    columns = ["model", "rule set", "case", "feature", "label", "excerpt"]
    return parts + [
        table(columns, body, data=rows, raw_columns=frozenset({"excerpt"})) if body else "<p>No such rows.</p>"
    ]


@register_page(
    "silent_bias.html",
    "Silent bias of chain-of-thought answers",
    runs=RUNS,
    studies=("studies/demo_silent_bias.toml", "studies/silent_bias.toml"),
)
def render(con: duckdb.DuckDBPyConnection, run_id: str | None = None) -> str:
    """One silent-bias study run's page: the finding first, then the rates, the between-model tests
    and the counterfactual pairs of the vignette sets it analysed."""
    found = RUNS.latest(con) if run_id is None else (run_id, 1)
    if found is None or not relation_exists(con, "marts", "fct_silent_bias_detections"):
        return (
            '<p class="note">No silent-bias results in this warehouse yet: run a silent-bias study '
            "(e.g. <code>biaswh run studies/demo_silent_bias.toml</code>).</p>"
        )
    run_id = found[0]
    parts = (
        [verdict_of(silent_bias_card(con, run_id))]
        + _rates_section(con, run_id)
        + model_comparisons_section(con, run_id)
        + _counterfactual_section(con, run_id)
        + disagreements_section(con, run_id)
        + _examples_section(con, run_id)
        + models_section(con, run_id)
        + [provenance_section(con, run_id)]
    )
    return "".join(parts)
