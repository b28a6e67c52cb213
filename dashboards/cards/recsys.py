"""The findings card of the recommendation bias study."""

from __future__ import annotations

from dashboards.findings import card, card_body, interval, latest_run, pct
from dashboards.html import text
from dashboards.queries import number, query_dicts


@card("LLM recommendation bias", "recsys.html")
def recsys_card(con) -> str | None:
    latest = latest_run(con, "marts.recsys_effect_sizes_aggregated")
    if latest is None:
        return None
    run_id, n_runs = latest
    rows = query_dicts(
        con,
        """select result_set, feature, r_squared_mean, n_significant, n_conditions, share_significant,
        share_significant_ci_low, share_significant_ci_high, marker
        from marts.recsys_effect_sizes_aggregated where run_id = ? and level = 'all'
        order by r_squared_mean desc nulls last, share_significant desc""",
        [run_id],
    )
    flagged = [r for r in rows if r["marker"]]
    if flagged:
        top = flagged[0]
        verdict = (
            f"<b>{len(flagged)} of {len(rows)} features shape what gets recommended</b> (significant in most "
            f"conditions); the largest effect: {text(top['feature'])}, mean R² {number(top['r_squared_mean'])}, "
            f"significant in {top['n_significant']} of {top['n_conditions']} conditions "
            f"({pct(top['share_significant'])}, 95% CI "
            f"{interval(top['share_significant_ci_low'], top['share_significant_ci_high'], 100, '%')})."
        )
    else:
        verdict = (
            "<b>No evidence that any feature shapes the recommendations in most conditions</b>: no feature is "
            "significant in more than half of its conditions."
        )
    table_rows = [
        [
            r["result_set"],
            r["feature"],
            number(r["r_squared_mean"]),
            f"{r['n_significant']}/{r['n_conditions']}",
            pct(r["share_significant"]),
            interval(r["share_significant_ci_low"], r["share_significant_ci_high"], 100, "%"),
            r["marker"] or "",
        ]
        for r in rows[:6]
    ]
    return card_body(
        verdict,
        "Features by mean R² (Cohen's d → d²/(d²+4), Cramér's V → V²) over all conditions",
        ["result set", "feature", "mean R²", "significant", "share", "95% CI (Wilson)", "marker"],
        table_rows,
        run_id,
        n_runs,
    )
