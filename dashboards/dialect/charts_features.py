"""Chart of the per-feature attribution: one row per rule, its recall cost and interval."""

from __future__ import annotations

import altair as alt


def feature_effects_chart(df) -> alt.FacetChart:
    """Recall difference (reference minus variant, points) per rule with its 95% bootstrap interval,
    one facet per highlighted k; rules sorted by their effect at the first k, all rules together on top."""
    order = df.sort_values(["is_all_rules", "delta_pp"], ascending=[False, False])["rule"].drop_duplicates().tolist()
    base = alt.Chart(df).encode(y=alt.Y("rule:N", title="rule", sort=order))
    zero = alt.Chart(df).mark_rule(color="#999", strokeDash=[3, 3]).encode(x=alt.datum(0))
    interval = base.mark_rule().encode(x=alt.X("ci_low:Q", title="recall difference (points)"), x2="ci_high:Q")
    point = base.mark_point(filled=True).encode(
        x="delta_pp:Q",
        color=alt.Color("significant:N", title="Holm p < 0.05"),
        tooltip=[
            "rule:N",
            "k:O",
            "n_pairs:Q",
            alt.Tooltip("delta_pp:Q", format=".2f"),
            alt.Tooltip("ci_low:Q", format=".2f"),
            alt.Tooltip("ci_high:Q", format=".2f"),
            alt.Tooltip("p_holm:Q", format=".4f"),
            alt.Tooltip("detectable_gap_pp:Q", format=".2f"),
        ],
    )
    return (
        alt.layer(zero, interval, point)
        .properties(width=260, height=alt.Step(18))
        .facet(column=alt.Column("k:O", title="k"), data=df)
    )
