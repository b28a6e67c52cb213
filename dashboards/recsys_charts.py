"""Charts of the recommendation-bias page: one function per chart, explicit field types.

Every chart takes a pandas DataFrame already shaped for it (the page does the querying);
a cell's ``label`` column holds the value and its significance marker as plain text.
"""

from __future__ import annotations

import altair as alt

# The original's bar colours by significance level.
SIGNIFICANCE_LEVELS = ["> 75 % of conditions (***)", "> 60 % (**)", "> 50 % (*)", "not consistently significant"]
SIGNIFICANCE_COLOURS = ["darkred", "coral", "lightsalmon", "steelblue"]
MARKER_LEVELS = {"***": SIGNIFICANCE_LEVELS[0], "**": SIGNIFICANCE_LEVELS[1], "*": SIGNIFICANCE_LEVELS[2],
                 "": SIGNIFICANCE_LEVELS[3]}


def _heatmap(df, *, x_field: str, x_title: str, title: str, width: int) -> alt.LayerChart:
    base = alt.Chart(df).encode(
        x=alt.X(f"{x_field}:N", title=x_title, axis=alt.Axis(labelAngle=-40)),
        y=alt.Y("feature:N", title="feature"),
    )
    cells = base.mark_rect().encode(
        color=alt.Color("value:Q", title="normalised bias", scale=alt.Scale(domain=[0, 1], scheme="yelloworangered")),
        tooltip=[alt.Tooltip("feature:N"), alt.Tooltip(f"{x_field}:N", title=x_title),
                 alt.Tooltip("value:Q", title="normalised bias", format=".3f"),
                 alt.Tooltip("bias_mean:Q", title="raw bias (mean)", format=".3f"),
                 alt.Tooltip("share_significant:Q", title="share p < 0.05", format=".0%"),
                 alt.Tooltip("n_conditions:Q", title="conditions")],
    )
    labels = base.mark_text(fontSize=9).encode(
        text=alt.Text("label:N"),
        color=alt.condition("datum.value > 0.6", alt.value("white"), alt.value("black")),
    )
    return (cells + labels).properties(title=title, width=width, height=alt.Step(18))


def condition_heatmap_chart(df, *, prompt_style: str) -> alt.LayerChart:
    """Normalised bias per feature × (dataset, model) under one prompt style; * = p < 0.05."""
    return _heatmap(df, x_field="dataset_model", x_title="dataset · model",
                    title=f"Prompt style: {prompt_style} (normalised bias; * = p < 0.05)", width=420)


def aggregated_heatmap_chart(df, *, by: str) -> alt.LayerChart:
    """Mean normalised bias per feature × group, with markers from the share of significant conditions."""
    return _heatmap(df, x_field="group_value", x_title=by,
                    title=f"By {by} (mean normalised bias; * > 50 %, ** > 60 %, *** > 75 % of conditions p < 0.05)",
                    width=max(140, 60 * df["group_value"].nunique()))


def fully_aggregated_bar_chart(df) -> alt.LayerChart:
    """Mean normalised bias per feature over all conditions, coloured by significance level."""
    order = df.sort_values("normalized_bias_mean", ascending=False)["feature"].tolist()
    base = alt.Chart(df).encode(y=alt.Y("feature:N", title="feature", sort=order))
    bars = base.mark_bar().encode(
        x=alt.X("normalized_bias_mean:Q", title="mean normalised bias (0-1)", scale=alt.Scale(domain=[0, 1])),
        color=alt.Color("significance:N", title="conditions with p < 0.05",
                        scale=alt.Scale(domain=SIGNIFICANCE_LEVELS, range=SIGNIFICANCE_COLOURS)),
        tooltip=[alt.Tooltip("feature:N"), alt.Tooltip("normalized_bias_mean:Q", format=".3f"),
                 alt.Tooltip("bias_mean:Q", title="raw bias (mean)", format=".3f"),
                 alt.Tooltip("share_significant:Q", title="share p < 0.05", format=".0%"),
                 alt.Tooltip("n_conditions:Q", title="conditions")],
    )
    markers = base.mark_text(align="left", dx=3).encode(x=alt.X("normalized_bias_mean:Q"), text=alt.Text("marker:N"))
    return (bars + markers).properties(title="Overall bias (fully aggregated)", width=420, height=alt.Step(18))


def signed_bias_bar_chart(df) -> alt.Chart:
    """Mean signed-normalised bias per feature: the direction min-max normalisation hides."""
    return alt.Chart(df).mark_bar().encode(
        x=alt.X("signed_normalized_bias_mean:Q", title="mean bias / max |bias| (-1 to 1)",
                scale=alt.Scale(domain=[-1, 1])),
        y=alt.Y("feature:N", title="feature", sort="-x"),
        color=alt.condition("datum.signed_normalized_bias_mean >= 0", alt.value("darkorange"), alt.value("teal")),
        tooltip=[alt.Tooltip("feature:N"), alt.Tooltip("signed_normalized_bias_mean:Q", format=".3f"),
                 alt.Tooltip("bias_mean:Q", title="raw bias (mean)", format=".3f")],
    ).properties(title="Direction (signed normalisation; Cramér's V has none)", width=420, height=alt.Step(18))
