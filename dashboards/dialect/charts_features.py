"""Chart of the per-feature attribution: one row per rule, its recall cost and interval."""

from __future__ import annotations

import altair as alt

from biaswh.dashboards.common.format import COUNT_TOOLTIP, NUMBER_TOOLTIP, POINTS_TOOLTIP, tooltips


def feature_effects_chart(df, *, legend: str) -> alt.FacetChart:
    """Recall difference (reference minus variant, points) per rule with its 95% score interval,
    one facet per highlighted k; rules sorted by their effect at the first k, all rules together on top.
    Colour: the verdict policy's ``significant`` column, titled ``legend`` (the policy in words)."""
    order = df.sort_values(["is_all_rules", "delta_pp"], ascending=[False, False])["rule"].drop_duplicates().tolist()
    # layers take their rows from the facet (a layer holding its own data would not be split by k)
    base = alt.Chart().encode(y=alt.Y("rule:N", title="rule", sort=order))
    zero = alt.Chart().mark_rule(color="#999", strokeDash=[3, 3]).encode(x=alt.datum(0))
    interval = base.mark_rule().encode(
        x=alt.X("ci_low:Q", title="recall difference (points)", scale=alt.Scale(padding=8)), x2=alt.X2("ci_high:Q")
    )
    point = base.mark_point(filled=True).encode(
        x=alt.X("delta_pp:Q"),
        color=alt.Color(
            "significant:N",
            title=legend,
            scale=alt.Scale(domain=["yes", "no"], range=["#c0392b", "#7f8c8d"]),
            # below the facets: the policy's legend title is long, and three facets fill the text column
            legend=alt.Legend(orient="bottom"),
        ),
        tooltip=tooltips(
            "rule:N",
            "k:O",
            alt.Tooltip("n_pairs:Q", title="pairs", format=COUNT_TOOLTIP),
            alt.Tooltip("delta_pp:Q", title="difference, points", format=POINTS_TOOLTIP),
            alt.Tooltip("ci_low:Q", title="CI low, points", format=POINTS_TOOLTIP),
            alt.Tooltip("ci_high:Q", title="CI high, points", format=POINTS_TOOLTIP),
            alt.Tooltip("p_adjusted:Q", title="adjusted p", format=NUMBER_TOOLTIP),
        ),
    )
    return (
        alt.layer(zero, interval, point)
        .properties(width=240, height=alt.Step(18))
        .facet(column=alt.Column("k:O", title="k"), data=df)
    )
