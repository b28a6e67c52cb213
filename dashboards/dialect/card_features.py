"""The findings card of the per-feature dialect study: which single rule costs recall, by the verdict policy."""

from __future__ import annotations

from biaswh.dashboards.common.findings import card, card_body, interval, pct
from biaswh.dashboards.common.format import p_value, plural, points
from biaswh.dashboards.common.html import text
from biaswh.dashboards.common.queries import query_dicts
from biaswh.dashboards.common.runs import RunsIn
from biaswh.dashboards.common.verdict_policy import adjustment_name, policy_phrase
from biaswh.stats.multiple_comparisons import VerdictPolicy, is_significant

# the rule-variant study runs: the card's and the page's (biaswh.dashboards.common.runs)
RUNS = RunsIn("analysis.dialect_feature_effects")
# Runs analysed before the verdict columns were stored: Holm at the default alpha, as their page said.
OLD_RUN_POLICY = VerdictPolicy()


def judged(row: dict) -> dict:
    """``row`` with the verdict columns filled in for a run analysed before they were stored
    (its ``p_holm`` at the default alpha, which is how its page judged it)."""
    if row.get("p_adjusted") is not None or row.get("p_holm") is None:
        return row
    return {
        **row,
        "p_adjusted": row["p_holm"],
        "adjustment": OLD_RUN_POLICY.name,
        "alpha": OLD_RUN_POLICY.alpha,
        "is_significant": is_significant(row["p_holm"], OLD_RUN_POLICY.alpha),
    }


def fired_rules(con, run_id: str) -> list[dict]:
    """Single-rule rows with at least one changed question, at the smallest highlighted k, largest cost first."""
    rows = query_dicts(
        con,
        """select * from analysis.dialect_feature_effects
        where run_id = ? and not is_all_rules and n_pairs > 0
        qualify k = min(k) over (partition by pair_set, retriever)
        order by pair_set, retriever, delta_pp desc nulls last, rule""",
        [run_id],
    )
    return [judged(row) for row in rows]


def rules_policy(rows: list[dict]) -> str:
    """The family, its size, the adjustment and alpha of the single rules, e.g.
    "Holm-adjusted within the rules that fired (10 tests), α = 0.05"."""
    first = next((r for r in rows if r.get("alpha") is not None), rows[0])
    size = max((r.get("family_size") or 0 for r in rows), default=0) or len({r["rule"] for r in rows})
    return policy_phrase(
        first.get("adjustment"), size, first.get("alpha") or OLD_RUN_POLICY.alpha, family="the rules that fired"
    )


def feature_finding(rows: list[dict]) -> str:
    """The verdict sentence (HTML): the rule costing most recall, significant or not by the verdict policy."""
    if not rows:
        return "<b>No rule changed any question</b> of this run: nothing to attribute."
    significant = [r for r in rows if r.get("is_significant") and r["delta_pp"] > 0]
    top = significant[0] if significant else rows[0]
    where = f"{text(top['retriever'])} recall@{top['k']} on {text(top['pair_set'])}"
    # a significant cost reads as a drop; otherwise the signed difference SAE − variant
    size = f"{abs(top['delta_pp']):.1f}" if significant else f"SAE − variant {points(top['delta_pp'])}"
    numbers = (
        f"{size} points ({pct(top['recall_a'])} → {pct(top['recall_b'])}, 95% CI "
        f"{interval(top['ci_low'], top['ci_high'], unit='pp')} points, "
        f"{text(adjustment_name(top.get('adjustment')))} p {text(p_value(top['p_adjusted'], equals=True))}, "
        f"{top['n_pairs']} pairs changed by it alone)"
    )
    family = text(rules_policy(rows))
    if significant:
        others = len(significant) - 1
        more = f"; {plural(others, 'more rule')} significant" if others else ""
        return f"<b>{text(top['rule'])} costs recall</b>: {where} drops by {numbers} ({family}){more}."
    return (
        f"<b>No single rule costs recall significantly</b> ({family}); the largest difference: "
        f"{text(top['rule'])}, {where}, {numbers}."
    )


def dialect_features_card(con, run_id: str | None = None, n_runs: int = 1) -> str | None:
    """The card of one study run (``run_id``; default: the latest run holding results)."""
    latest = (run_id, n_runs) if run_id else RUNS.latest(con)
    if latest is None:
        return None
    run_id, n_runs = latest
    rows = fired_rules(con, run_id)
    table_rows = [
        [
            r["rule"],
            r["n_pairs"],
            pct(r["recall_a"]),
            pct(r["recall_b"]),
            points(r["delta_pp"]),
            p_value(r["p_adjusted"]),
        ]
        for r in rows[:5]
    ]
    adjustment = adjustment_name(rows[0].get("adjustment")) if rows else "Holm"
    columns = ["rule", "pairs", "recall SAE", "recall with the rule", "difference, points", f"{adjustment} p"]
    caption = f"Largest costs at k = {rows[0]['k']} (top 5; {rules_policy(rows)})" if rows else ""
    return card_body(feature_finding(rows), caption, columns, table_rows, run_id, n_runs, data=rows[:5])


# Registered by a call, not a decorator: mutmut 3 leaves decorated functions unmutated, and the card's
# table and caption are built here (docs/mutation-survivors-pages.md).
card("Dialect features (one rule at a time)", "dialect_features.html", order=15, runs=RUNS)(dialect_features_card)
