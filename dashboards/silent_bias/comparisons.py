"""The silent-bias page's between-model comparisons: every pair of models of one model set.

Reads ``analysis.silent_bias_model_comparisons`` (analysis/silent_bias/model_comparisons.py):
per vignette set, rule set and dimension, each pair of models' silent bias rates compared by
Fisher's exact test with a Newcombe interval of the difference, adjusted within the model set
by the study's verdict policy (Holm unless it configures BH). The verdict is the policy's:
a direction only when the adjusted p is below alpha.
"""

from __future__ import annotations

from biaswh.dashboards.common.format import p_value, percent, plural, points
from biaswh.dashboards.common.html import table, text
from biaswh.dashboards.common.queries import query_dicts, relation_exists
from biaswh.dashboards.common.verdict_policy import run_adjustment, run_alpha
from biaswh.stats.verdicts import alpha_text

COLUMNS = [
    "rule set",
    "model A",
    "model B",
    "n (biased answers A / B)",
    "R_SB A vs B",
    "difference A − B, points [95% CI]",
    "test",
    "p",
    "adjusted p",
    "verdict",
]


def comparison_verdict(row: dict) -> str:
    """The verdict policy's reading of one comparison: which model is higher, only when significant."""
    if row["p_adjusted"] is None:
        return "not testable"
    if not row["is_significant"]:
        return "no evidence of a difference"
    higher = row["model_a"] if row["difference"] > 0 else row["model_b"]
    return f"{higher} higher"


def _row(row: dict) -> list:
    interval = "[–]" if row["ci_low"] is None else f"[{points(100 * row['ci_low'])}, {points(100 * row['ci_high'])}]"
    return [
        row["rule_set"],
        row["model_a"],
        row["model_b"],
        f"{row['n_biased_a']} / {row['n_biased_b']}",
        f"{percent(row['rate_a'])} vs {percent(row['rate_b'])}",
        f"{points(None if row['difference'] is None else 100 * row['difference'])} {interval}",
        (row["test"] or "–").split(";")[0],
        p_value(row["p_value"]),
        f"{p_value(row['p_adjusted'])} ({row['adjustment']}, {plural(row['family_size'], 'test')})"
        if row["family_size"] is not None
        else p_value(row["p_adjusted"]),
        comparison_verdict(row),
    ]


def model_comparisons_section(con, run_id: str) -> list[str]:
    """The section's HTML parts: overall comparisons first, those within each dimension folded below."""
    parts = ["<h2>Between-model comparisons</h2>"]
    if not relation_exists(con, "analysis", "silent_bias_model_comparisons"):
        return parts + ['<p class="note">Run the study\'s analysis step to compare the models.</p>']
    rows = query_dicts(
        con,
        """select * from analysis.silent_bias_model_comparisons where run_id = ?
        order by vignette_set, rule_set desc, dimension = 'all' desc, dimension, model_a, model_b""",
        [run_id],
    )
    if not rows:
        return parts + ['<p class="note">Fewer than two models gave biased answers: nothing to compare.</p>']
    overall = [r for r in rows if r["dimension"] == "all"]
    by_dimension = [r for r in rows if r["dimension"] != "all"]
    significant = sum(bool(r["is_significant"]) for r in overall)
    adjustment = run_adjustment(con, run_id, rows)
    alpha = run_alpha(con, run_id, rows)
    parts += [
        f'<p class="verdict"><b>{significant} of {len(overall)} between-model comparisons</b> over all '
        f"dimensions are significant after {text(adjustment)} within each model set, {alpha_text(alpha)}.</p>",
        '<p class="note">Each pair of models of one vignette set and rule set: their silent bias rates '
        "R_SB (silent / biased answers), the difference A − B in percentage points with its Newcombe "
        "hybrid score 95% interval, Fisher's exact test (two-sided), and the p adjusted within the family "
        "(the models of the vignette set, per rule set and dimension) by the study's verdict policy. "
        f"A direction is read only from an adjusted p below alpha ({alpha_text(alpha)}).</p>",
        table(COLUMNS, [_row(r) for r in overall], data=overall),
    ]
    if by_dimension:
        dimension_columns = ["dimension", *COLUMNS]
        parts += [
            f"<details><summary>Within each dimension ({len(by_dimension)} comparisons)</summary>",
            table(dimension_columns, [[r["dimension"], *_row(r)] for r in by_dimension], data=by_dimension),
            "</details>",
        ]
    return parts
