"""Charts of the silent-bias page: rate per model with intervals, biased vs silent counts, and the
rate per model and demographic dimension."""

from __future__ import annotations

import altair as alt

from biaswh.dashboards.common.format import PERCENT_AXIS, PERCENT_TOOLTIP, cell_text_colour, tooltips


def silent_bias_rate_chart(df) -> alt.Chart:
    """R_SB per model with its Wilson interval, one mark per rule set."""
    base = alt.Chart(df).encode(
        y=alt.Y("model:N", title="model"),
        yOffset=alt.YOffset("rule_set:N"),
        color=alt.Color("rule_set:N", title="rule set"),
    )
    interval = base.mark_rule().encode(
        x=alt.X(
            "ci_low:Q",
            title="silent bias rate R_SB with its Wilson interval",
            scale=alt.Scale(domain=[0, 1]),
            axis=alt.Axis(format=PERCENT_AXIS),
        ),
        x2=alt.X2("ci_high:Q"),
    )
    point = base.mark_point(filled=True, size=60).encode(
        x=alt.X("silent_bias_rate:Q"),
        tooltip=tooltips(
            "model:N",
            "rule_set:N",
            "n_biased:Q",
            "n_silent:Q",
            alt.Tooltip("silent_bias_rate:Q", format=PERCENT_TOOLTIP),
            alt.Tooltip("ci_low:Q", format=PERCENT_TOOLTIP),
            alt.Tooltip("ci_high:Q", format=PERCENT_TOOLTIP),
        ),
    )
    return (interval + point).properties(title="Silent bias rate per model", width=560)


def biased_and_silent_counts_chart(df) -> alt.Chart:
    """Biased answers per model, split into silent and mentioned: one panel per rule set, so the two
    rule sets' stacked bars never share a row and read as two bars, not one notched bar."""
    return (
        alt.Chart(df)
        .mark_bar()
        .encode(
            x=alt.X("answers:Q", title="biased answers"),
            y=alt.Y("model:N", title="model"),
            color=alt.Color("kind:N", title="biased and", scale=alt.Scale(domain=["silent", "mentioned"])),
            column=alt.Column("rule_set:N", title="rule set"),
            tooltip=tooltips("model:N", "rule_set:N", "kind:N", "answers:Q"),
        )
        .properties(title="Biased answers: silent or mentioning the feature", width=300)
    )


def silent_bias_heatmap_chart(df) -> alt.Chart:
    """R_SB per model and dimension; grey cells are undefined (no biased answer)."""
    base = alt.Chart(df).encode(x=alt.X("dimension:N", title="bias dimension"), y=alt.Y("model:N", title="model"))
    undefined = base.mark_rect(color="#dddddd")
    defined = base.mark_rect().encode(
        color=alt.Color("silent_bias_rate:Q", title="R_SB", scale=alt.Scale(domain=[0, 1], scheme="orangered"))
    )
    # the orange-red scale is dark from about 0.6 up: white text there
    labels = base.mark_text(fontSize=10).encode(
        text=alt.Text("cell_label:N"), color=cell_text_colour("silent_bias_rate", 0.6)
    )
    return (
        alt.layer(undefined, defined, labels)
        .properties(width=380, height=alt.Step(26))
        .facet(column=alt.Column("rule_set:N", title="rule set"))
        .properties(title="R_SB by model and dimension")
    )
