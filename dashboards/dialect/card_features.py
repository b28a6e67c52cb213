"""The findings card of the per-feature dialect study: which single rule costs recall, Holm over the rules."""

from __future__ import annotations

from dashboards.common.findings import ALPHA, card, card_body, interval, pct
from dashboards.common.format import p_value, plural, points
from dashboards.common.html import text
from dashboards.common.queries import query_dicts
from dashboards.common.runs import RunsIn

# the rule-variant study runs: the card's and the page's (dashboards.common.runs)
RUNS = RunsIn("analysis.dialect_feature_effects")


def fired_rules(con, run_id: str) -> list[dict]:
    """Single-rule rows with at least one changed question, at the smallest highlighted k, largest cost first."""
    return query_dicts(
        con,
        """select * from analysis.dialect_feature_effects
        where run_id = ? and not is_all_rules and n_pairs > 0
        qualify k = min(k) over (partition by pair_set, retriever)
        order by pair_set, retriever, delta_pp desc nulls last, rule""",
        [run_id],
    )


def feature_finding(rows: list[dict]) -> str:
    """The verdict sentence (HTML): the rule costing most recall, significant or not after Holm."""
    if not rows:
        return "<b>No rule changed any question</b> of this run: nothing to attribute."
    significant = [r for r in rows if r["p_holm"] is not None and r["p_holm"] < ALPHA and r["delta_pp"] > 0]
    top = significant[0] if significant else rows[0]
    where = f"{text(top['retriever'])} recall@{top['k']} on {text(top['pair_set'])}"
    # a significant cost reads as a drop; otherwise the signed difference SAE − variant
    size = f"{abs(top['delta_pp']):.1f}" if significant else f"SAE − variant {points(top['delta_pp'])}"
    numbers = (
        f"{size} points ({pct(top['recall_a'])} → {pct(top['recall_b'])}, 95% CI "
        f"{interval(top['ci_low'], top['ci_high'], unit='pp')} points, "
        f"Holm p {text(p_value(top['p_holm'], equals=True))}, "
        f"{top['n_pairs']} pairs changed by it alone)"
    )
    family = f"Holm over the {len({r['rule'] for r in rows})} rules that fired"
    if significant:
        others = len(significant) - 1
        more = f"; {plural(others, 'more rule')} significant" if others else ""
        return f"<b>{text(top['rule'])} costs recall</b>: {where} drops by {numbers} ({family}){more}."
    return (
        f"<b>No single rule costs recall significantly</b> ({family}); the largest difference: "
        f"{text(top['rule'])}, {where}, {numbers}."
    )


@card(
    "Dialect features (one rule at a time)",
    "dialect_features.html",
    order=15,
    runs=RUNS,
)
def dialect_features_card(con, run_id: str | None = None, n_runs: int = 1) -> str | None:
    """The card of one study run (``run_id``; default: the latest run holding results)."""
    latest = (run_id, n_runs) if run_id else RUNS.latest(con)
    if latest is None:
        return None
    run_id, n_runs = latest
    rows = fired_rules(con, run_id)
    table_rows = [
        [r["rule"], r["n_pairs"], pct(r["recall_a"]), pct(r["recall_b"]), points(r["delta_pp"]), p_value(r["p_holm"])]
        for r in rows[:5]
    ]
    columns = ["rule", "pairs", "recall SAE", "recall with the rule", "difference, points", "Holm p"]
    caption = f"Largest costs at k = {rows[0]['k']} (top 5)" if rows else ""
    return card_body(feature_finding(rows), caption, columns, table_rows, run_id, n_runs, data=rows[:5])
