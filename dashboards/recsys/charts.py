"""Charts of the recommendation-bias page: one function per chart, explicit field types.

Every chart takes a pandas DataFrame already shaped for it (the page does the querying);
a cell's ``label`` column holds the value and its significance marker as plain text.
"""

from __future__ import annotations

import altair as alt

# The original's bar colours by significance level.
SIGNIFICANCE_LEVELS = ["> 75 % of conditions (***)", "> 60 % (**)", "> 50 % (*)", "not consistently significant"]
SIGNIFICANCE_COLOURS = ["darkred", "coral", "lightsalmon", "steelblue"]
MARKER_LEVELS = {
    "***": SIGNIFICANCE_LEVELS[0],
    "**": SIGNIFICANCE_LEVELS[1],
    "*": SIGNIFICANCE_LEVELS[2],
    "": SIGNIFICANCE_LEVELS[3],
}


def _heatmap(df, *, x_field: str, x_title: str, title: str, width: int) -> alt.LayerChart:
    base = alt.Chart(df).encode(
        x=alt.X(f"{x_field}:N", title=x_title, axis=alt.Axis(labelAngle=-40)),
        y=alt.Y("feature:N", title="feature"),
    )
    cells = base.mark_rect().encode(
        color=alt.Color("value:Q", title="normalised bias", scale=alt.Scale(domain=[0, 1], scheme="yelloworangered")),
        tooltip=[
            alt.Tooltip("feature:N"),
            alt.Tooltip(f"{x_field}:N", title=x_title),
            alt.Tooltip("value:Q", title="normalised bias", format=".3f"),
            alt.Tooltip("bias_mean:Q", title="raw bias (mean)", format=".3f"),
            alt.Tooltip("share_significant:Q", title="share p < 0.05", format=".0%"),
            alt.Tooltip("n_conditions:Q", title="conditions"),
        ],
    )
    labels = base.mark_text(fontSize=9).encode(
        text=alt.Text("label:N"),
        color=alt.condition("datum.value > 0.6", alt.value("white"), alt.value("black")),
    )
    return (cells + labels).properties(title=title, width=width, height=alt.Step(18))


def condition_heatmap_chart(df, *, prompt_style: str) -> alt.LayerChart:
    """As published: min-max normalised bias per feature × (dataset, model) under one prompt style; * = p < 0.05."""
    return _heatmap(
        df,
        x_field="dataset_model",
        x_title="dataset · model",
        title=f"As published · prompt style: {prompt_style} (min-max normalised bias; * = p < 0.05)",
        width=420,
    )


def aggregated_heatmap_chart(df, *, by: str) -> alt.LayerChart:
    """As published: mean min-max normalised bias per feature × group, markers from the share of significant
    conditions."""
    return _heatmap(
        df,
        x_field="group_value",
        x_title=by,
        title=f"As published · by {by} (mean min-max normalised bias; * > 50 %, ** > 60 %, *** > 75 %"
        " of conditions p < 0.05)",
        width=max(140, 60 * df["group_value"].nunique()),
    )


# A cell whose conditions are not mostly significant is drawn muted, whatever its value.
SIGNIFICANT_CELL = "datum.share_significant > 0.5"
MUTED = "#e8e8e8"


def _signed_heatmap(df, *, x_field: str, x_title: str, title: str, width: int) -> alt.LayerChart:
    base = alt.Chart(df).encode(
        x=alt.X(f"{x_field}:N", title=x_title, axis=alt.Axis(labelAngle=-40)),
        y=alt.Y("feature:N", title="feature"),
    )
    cells = base.mark_rect().encode(
        color=alt.condition(
            SIGNIFICANT_CELL,
            alt.Color(
                "signed_normalized_bias_mean:Q",
                title="signed bias / max |bias|",
                scale=alt.Scale(domain=[-1, 1], domainMid=0, scheme="redblue", reverse=True),
            ),
            alt.value(MUTED),
        ),
        tooltip=[
            alt.Tooltip("feature:N"),
            alt.Tooltip(f"{x_field}:N", title=x_title),
            alt.Tooltip("signed_normalized_bias_mean:Q", title="signed normalised bias", format=".3f"),
            alt.Tooltip("bias_mean:Q", title="raw bias (mean)", format=".3f"),
            alt.Tooltip("share_significant:Q", title="share p < 0.05", format=".0%"),
            alt.Tooltip("n_conditions:Q", title="conditions"),
        ],
    )
    labels = (
        base.mark_text(fontSize=9)
        .encode(
            text=alt.Text("signed_label:N"),
            # white on the dark ends of the red-blue scale, grey where the cell is muted (not significant)
            color=alt.Color("label_colour:N", scale=None),
        )
        .transform_calculate(
            label_colour=f"!({SIGNIFICANT_CELL}) ? '#8c959f'"
            " : abs(datum.signed_normalized_bias_mean) > 0.6 ? 'white' : 'black'"
        )
    )
    # the labels' colours are literal (scale None): their colour channel must not merge with the cells' scale
    return (cells + labels).resolve_scale(color="independent").properties(title=title, width=width, height=alt.Step(18))


def signed_condition_heatmap_chart(df, *, prompt_style: str) -> alt.LayerChart:
    """Signed bias per feature × (dataset, model) under one prompt style, on a diverging scale around 0;
    a cell without p < 0.05 is grey."""
    return _signed_heatmap(
        df,
        x_field="dataset_model",
        x_title="dataset · model",
        title=f"Prompt style: {prompt_style} (signed bias; grey: p ≥ 0.05)",
        width=420,
    )


def signed_aggregated_heatmap_chart(df, *, by: str) -> alt.LayerChart:
    """Mean signed bias per feature × group on a diverging scale; grey when at most half the group's
    conditions have p < 0.05."""
    return _signed_heatmap(
        df,
        x_field="group_value",
        x_title=by,
        title=f"By {by} (mean signed bias; grey: at most half the conditions p < 0.05)",
        width=max(140, 60 * df["group_value"].nunique()),
    )


def condition_interval_chart(df) -> alt.LayerChart:
    """Hedges' g with its 95% interval for every condition of each numerical feature (a forest plot)."""
    base = alt.Chart(df).encode(
        y=alt.Y("condition:N", title="dataset · model · prompt style"),
        color=alt.Color(
            "significance:N", title=None, scale=alt.Scale(domain=["p < 0.05", "p ≥ 0.05"], range=["#cf222e", "#8c959f"])
        ),
    )
    zero = alt.Chart(df).mark_rule(color="#999", strokeDash=[3, 3]).encode(x=alt.datum(0))
    interval = base.mark_rule().encode(x=alt.X("ci_low:Q", title="Hedges' g (95% CI)"), x2="ci_high:Q")
    point = base.mark_point(filled=True, size=30).encode(
        x="hedges_g:Q",
        tooltip=[
            "feature:N",
            "condition:N",
            alt.Tooltip("hedges_g:Q", format=".3f"),
            alt.Tooltip("ci_low:Q", format=".3f"),
            alt.Tooltip("ci_high:Q", format=".3f"),
            alt.Tooltip("p_value:Q", format=".3g"),
        ],
    )
    return (
        alt.layer(zero, interval, point)
        .properties(width=250, height=alt.Step(11))
        .facet(column=alt.Column("feature:N", title=None))
        .properties(title="Condition-level effects of the numerical features with their intervals")
    )


def fully_aggregated_bar_chart(df) -> alt.LayerChart:
    """As published: mean min-max normalised bias per feature over all conditions, coloured by significance level."""
    order = df.sort_values("normalized_bias_mean", ascending=False)["feature"].tolist()
    base = alt.Chart(df).encode(y=alt.Y("feature:N", title="feature", sort=order))
    bars = base.mark_bar().encode(
        x=alt.X("normalized_bias_mean:Q", title="mean normalised bias (0-1)", scale=alt.Scale(domain=[0, 1])),
        color=alt.Color(
            "significance:N",
            title="conditions with p < 0.05",
            scale=alt.Scale(domain=SIGNIFICANCE_LEVELS, range=SIGNIFICANCE_COLOURS),
        ),
        tooltip=[
            alt.Tooltip("feature:N"),
            alt.Tooltip("normalized_bias_mean:Q", format=".3f"),
            alt.Tooltip("bias_mean:Q", title="raw bias (mean)", format=".3f"),
            alt.Tooltip("share_significant:Q", title="share p < 0.05", format=".0%"),
            alt.Tooltip("n_conditions:Q", title="conditions"),
        ],
    )
    markers = base.mark_text(align="left", dx=3).encode(x=alt.X("normalized_bias_mean:Q"), text=alt.Text("marker:N"))
    return (bars + markers).properties(
        title="Overall bias as published (min-max normalised, fully aggregated)", width=420, height=alt.Step(18)
    )


def signed_bias_bar_chart(df) -> alt.Chart:
    """Mean signed-normalised bias per feature, the direction min-max normalisation hides; a feature with at
    most half its conditions p < 0.05 is drawn grey."""
    return (
        alt.Chart(df)
        .mark_bar()
        .encode(
            x=alt.X(
                "signed_normalized_bias_mean:Q",
                title="mean bias / max |bias| (-1 to 1)",
                scale=alt.Scale(domain=[-1, 1]),
            ),
            y=alt.Y("feature:N", title="feature", sort="-x"),
            color=alt.condition(
                SIGNIFICANT_CELL,
                alt.Color(
                    "direction:N",
                    title="direction",
                    scale=alt.Scale(domain=["favoured (> 0)", "disfavoured (< 0)"], range=["#b2182b", "#2166ac"]),
                ),
                alt.value("#c8c8c8"),
            ),
            tooltip=[
                alt.Tooltip("feature:N"),
                alt.Tooltip("signed_normalized_bias_mean:Q", format=".3f"),
                alt.Tooltip("bias_mean:Q", title="raw bias (mean)", format=".3f"),
                alt.Tooltip("share_significant:Q", title="share p < 0.05", format=".0%"),
            ],
        )
        .transform_calculate(
            direction="datum.signed_normalized_bias_mean >= 0 ? 'favoured (> 0)' : 'disfavoured (< 0)'"
        )
        .properties(
            title="Overall signed bias (grey: at most half the conditions p < 0.05; Cramér's V has no sign)",
            width=420,
            height=alt.Step(18),
        )
    )
