"""The findings card of the recommendation bias study.

The family of a test is its result set (every feature × condition of one recommendation
run, adjusted together by the ``recsys_bias`` job, as the page reports). The card counts
tests significant after that adjustment at the study's ``[verdicts] alpha``
(``significant_adjusted``), never the original's raw p.
"""

from __future__ import annotations

from biaswh.dashboards.common.findings import card, card_body, interval, pct
from biaswh.dashboards.common.html import text
from biaswh.dashboards.common.queries import number, query_dicts
from biaswh.dashboards.common.runs import RunsIn
from biaswh.dashboards.common.verdict_policy import adjustment_name, recorded_policy, run_parameters
from biaswh.stats.effect_sizes import magnitude, scale_note
from biaswh.stats.multiple_comparisons import ADJUSTMENT_NAMES
from biaswh.stats.verdicts import alpha_text, significance_count
from biaswh.stats.wilson import wilson_interval
from biaswh.warehouse.runs.parameters import parameter_defaults

# The recommendation marts the card and the page read (named once: dbt may rename them).
SUMMARY = "marts.fct_recsys_pool_vs_recommended"
AGGREGATED = "marts.agg_recsys_bias"
EFFECT_SIZES = "marts.agg_recsys_effect_sizes"
DIRECTIONAL = "marts.agg_recsys_directional_bias"
IMPORTANCE = "marts.agg_recsys_feature_importance"
# the recommendation study runs: the card's and the page's (biaswh.dashboards.common.runs)
RUNS = RunsIn(SUMMARY)

FEATURES = f"""
with tests as (
    select result_set, feature, significant_adjusted, adjustment_method,
        count(*) over (partition by result_set) as family_size
    from {SUMMARY} where run_id = ? and adjustment_method is not null
),

per_feature as (
    select result_set, feature, any_value(adjustment_method) as adjustment_method,
        any_value(family_size) as family_size, count(*) as n_conditions,
        count(*) filter (where significant_adjusted) as n_significant_adjusted
    from tests group by all
)

select f.*, e.r_squared_mean
from per_feature as f
left join {EFFECT_SIZES} as e
    on e.run_id = ? and e.level = 'all' and e.result_set = f.result_set and e.feature = f.feature
order by e.r_squared_mean desc nulls last, f.n_significant_adjusted desc, f.feature
"""


def published_alpha(con, run_id: str) -> float:
    """The paper's level behind the "as published" raw-p markers of run ``run_id`` (its run parameter)."""
    default = parameter_defaults()["recsys_published_alpha"]
    return float(run_parameters(con, run_id).get("recsys_published_alpha", default))


def verdict_rule(con, run_id: str, method: str | None = None) -> str:
    """What "significant" means on the run's page, e.g. "significant after Holm within the result set, α = 0.05"
    (``method``: the stored adjustment; by default the run's own)."""
    if method is None:
        found = con.execute(f"select any_value(adjustment_method) from {SUMMARY} where run_id = ?", [run_id]).fetchone()
        method = found[0] if found else None
    alpha = recorded_policy(con, run_id).alpha
    return f"significant after {adjustment_name(method)} within the result set, {alpha_text(alpha)}"


def recsys_verdict(rows: list[dict], *, alpha: float) -> str:
    """The card's sentence: features significant (after adjustment within their result set, at ``alpha``) in
    most conditions, then each result set's count of significant tests with its family size."""
    if not rows:
        return "<b>No adjusted tests</b>: run the <code>recsys_bias</code> job."
    counts = []
    for result_set in sorted({r["result_set"] for r in rows}):
        members = [r for r in rows if r["result_set"] == result_set]
        counts.append(
            significance_count(
                sum(r["n_significant_adjusted"] for r in members),
                members[0]["family_size"],
                noun="tests",
                adjustment=ADJUSTMENT_NAMES.get(members[0]["adjustment_method"], members[0]["adjustment_method"]),
                family=f"result set {result_set}",
                alpha=alpha,
            )
        )
    flagged = [r for r in rows if r["n_significant_adjusted"] > r["n_conditions"] / 2]
    if flagged:
        top = flagged[0]
        share = wilson_interval(top["n_significant_adjusted"], top["n_conditions"])
        return (
            f"<b>{len(flagged)} of {len(rows)} features shape what gets recommended</b> (significant after "
            f"adjustment in most of their conditions; {text('; '.join(counts))}). The largest observed effect: "
            f"{text(top['feature'])}, mean R² {number(top['r_squared_mean'])} "
            f"({magnitude(top['r_squared_mean'], statistic='r_squared') or 'unknown'}), significant in "
            f"{top['n_significant_adjusted']} of {top['n_conditions']} conditions ({pct(share.rate)}, 95% CI "
            f"{interval(share.ci_low, share.ci_high, 100, '%')})."
        )
    return (
        "<b>No evidence that any feature shapes the recommendations in most conditions</b>: no feature is "
        f"significant after adjustment in more than half of its conditions ({text('; '.join(counts))})."
    )


def recsys_card(con, run_id: str | None = None, n_runs: int = 1) -> str | None:
    """The card of one study run (``run_id``; default: the latest run holding results)."""
    latest = (run_id, n_runs) if run_id else RUNS.latest(con)
    if latest is None:
        return None
    run_id, n_runs = latest
    rows = query_dicts(con, FEATURES, [run_id, run_id])
    table_rows = []
    for r in rows[:6]:
        share = wilson_interval(r["n_significant_adjusted"], r["n_conditions"])
        table_rows.append(
            [
                r["result_set"],
                r["feature"],
                number(r["r_squared_mean"]),
                magnitude(r["r_squared_mean"], statistic="r_squared") or "–",
                f"{r['n_significant_adjusted']}/{r['n_conditions']}",
                pct(share.rate),
                interval(share.ci_low, share.ci_high, 100, "%"),
            ]
        )
    return card_body(
        recsys_verdict(rows, alpha=recorded_policy(con, run_id).alpha),
        "Features by mean R² (Cohen's d → d²/(d²+4), Cramér's V → V²; "
        f"{scale_note('r_squared')}) over all conditions; {verdict_rule(con, run_id)}",
        ["result set", "feature", "mean R²", "magnitude", "significant", "share", "95% CI (Wilson)"],
        table_rows,
        run_id,
        n_runs,
        data=rows[:6],
    )


# Registered by a call, not a decorator: mutmut 3 leaves decorated functions unmutated, and the card's
# verdict and table are built here (docs/mutation-survivors-pages.md).
card("LLM recommendation bias", "recsys.html", order=50, runs=RUNS)(recsys_card)
