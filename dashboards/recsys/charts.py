"""Charts of the recommendation-bias page: one function per chart, explicit field types.

Every chart takes a pandas DataFrame already shaped for it (the page does the querying);
a cell's ``label`` column holds the value and its significance marker as plain text. The
default views read the verdicts (``share_significant`` and ``marker`` there are the shares
significant after the study's adjustment within the result set, at its alpha) and say so with
``rule``, e.g. "significant after Holm within the result set, α = 0.05"; the original's views
are titled "as published" and count raw p as the paper did, ``rule`` = :func:`as_published`.
"""

from __future__ import annotations

import altair as alt

from biaswh.dashboards.common.format import tooltips

# The original's bar colours by significance level.
SIGNIFICANCE_LEVELS = ["> 75 % of conditions (***)", "> 60 % (**)", "> 50 % (*)", "not consistently significant"]
SIGNIFICANCE_COLOURS = ["darkred", "coral", "lightsalmon", "steelblue"]
MARKER_LEVELS = {
    "***": SIGNIFICANCE_LEVELS[0],
    "**": SIGNIFICANCE_LEVELS[1],
    "*": SIGNIFICANCE_LEVELS[2],
    "": SIGNIFICANCE_LEVELS[3],
}


def as_published(alpha: float) -> str:
    """The rule of the original's markers: "as published (raw p < 0.05)"."""
    return f"as published (raw p < {alpha:g})"


def _heatmap(df, *, x_field: str, x_title: str, title: str, width: int, rule: str) -> alt.LayerChart:
    base = alt.Chart(df).encode(
        x=alt.X(f"{x_field}:N", title=x_title, axis=alt.Axis(labelAngle=-40)),
        y=alt.Y("feature:N", title="feature"),
    )
    cells = base.mark_rect().encode(
        color=alt.Color("value:Q", title="normalised bias", scale=alt.Scale(domain=[0, 1], scheme="yelloworangered")),
        tooltip=tooltips(
            "feature:N",
            alt.Tooltip(f"{x_field}:N", title=x_title),
            alt.Tooltip("value:Q", title="normalised bias", format=".3f"),
            alt.Tooltip("bias_mean:Q", title="raw bias (mean)", format=".3f"),
            alt.Tooltip("share_significant:Q", title=f"share {rule}", format=".0%"),
            alt.Tooltip("n_conditions:Q", title="conditions"),
        ),
    )
    labels = base.mark_text(fontSize=9).encode(
        text=alt.Text("label:N"),
        color=alt.condition("datum.value > 0.6", alt.value("white"), alt.value("black")),
    )
    return (cells + labels).properties(title=title, width=width, height=alt.Step(18))


def condition_heatmap_chart(df, *, prompt_style: str, published_alpha: float) -> alt.LayerChart:
    """As published: min-max normalised bias per feature × (dataset, model) under one prompt style;
    * = raw p below the paper's level."""
    rule = as_published(published_alpha)
    return _heatmap(
        df,
        x_field="dataset_model",
        x_title="dataset · model",
        title=f"Prompt style: {prompt_style}, {rule} (min-max normalised bias; * = p < {published_alpha:g})",
        width=420,
        rule=rule,
    )


def aggregated_heatmap_chart(df, *, by: str, published_alpha: float) -> alt.LayerChart:
    """As published: mean min-max normalised bias per feature × group, markers from the share of conditions
    with raw p below the paper's level."""
    rule = as_published(published_alpha)
    return _heatmap(
        df,
        x_field="group_value",
        x_title=by,
        title=f"By {by}, {rule} (mean min-max normalised bias; * > 50 %, ** > 60 %, *** > 75 % of conditions)",
        width=max(140, 60 * df["group_value"].nunique()),
        rule=rule,
    )


# A cell whose conditions are not mostly significant is drawn muted, whatever its value.
SIGNIFICANT_CELL = "datum.share_significant > 0.5"
MUTED = "#e8e8e8"


def _signed_heatmap(df, *, x_field: str, x_title: str, title: str, width: int, rule: str) -> alt.LayerChart:
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
        tooltip=tooltips(
            "feature:N",
            alt.Tooltip(f"{x_field}:N", title=x_title),
            alt.Tooltip("signed_normalized_bias_mean:Q", title="signed normalised bias", format=".3f"),
            alt.Tooltip("bias_mean:Q", title="raw bias (mean)", format=".3f"),
            alt.Tooltip("share_significant:Q", title=f"share {rule}", format=".0%"),
            alt.Tooltip("n_conditions:Q", title="conditions"),
        ),
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


def signed_condition_heatmap_chart(df, *, prompt_style: str, rule: str) -> alt.LayerChart:
    """Signed bias per feature × (dataset, model) under one prompt style, on a diverging scale around 0;
    a cell not significant by ``rule`` (the verdict policy in words) is grey."""
    return _signed_heatmap(
        df,
        x_field="dataset_model",
        x_title="dataset · model",
        title=f"Prompt style: {prompt_style} (signed bias; grey: not {rule})",
        width=420,
        rule=rule,
    )


def signed_aggregated_heatmap_chart(df, *, by: str, rule: str) -> alt.LayerChart:
    """Mean signed bias per feature × group on a diverging scale; grey when at most half the group's
    conditions are significant by ``rule``."""
    return _signed_heatmap(
        df,
        x_field="group_value",
        x_title=by,
        title=f"By {by} (mean signed bias; grey: at most half the conditions {rule})",
        width=max(140, 60 * df["group_value"].nunique()),
        rule=rule,
    )


def condition_interval_chart(df, *, rule: str) -> alt.LayerChart:
    """Hedges' g with its 95% interval for every condition of each numerical feature (a forest plot),
    coloured by the verdict (``significance``: "significant" or "not significant", by ``rule``)."""
    base = alt.Chart(df).encode(
        y=alt.Y("condition:N", title="dataset · model · prompt style"),
        color=alt.Color(
            "significance:N",
            title=rule,
            scale=alt.Scale(domain=["significant", "not significant"], range=["#cf222e", "#8c959f"]),
            # below the facets: the policy's legend title is long, and the facets fill the text column
            legend=alt.Legend(orient="bottom"),
        ),
    )
    zero = alt.Chart(df).mark_rule(color="#999", strokeDash=[3, 3]).encode(x=alt.datum(0))
    interval = base.mark_rule().encode(x=alt.X("ci_low:Q", title="Hedges' g (95% CI)"), x2=alt.X2("ci_high:Q"))
    point = base.mark_point(filled=True, size=30).encode(
        x=alt.X("hedges_g:Q"),
        tooltip=tooltips(
            "feature:N",
            "condition:N",
            alt.Tooltip("hedges_g:Q", format=".3f"),
            alt.Tooltip("ci_low:Q", format=".3f"),
            alt.Tooltip("ci_high:Q", format=".3f"),
            alt.Tooltip("p_value:Q", title="raw p", format=".3g"),
            alt.Tooltip("p_value_adjusted:Q", title="adjusted p", format=".3g"),
        ),
    )
    return (
        alt.layer(zero, interval, point)
        .properties(width=220, height=alt.Step(11))
        .facet(column=alt.Column("feature:N", title=None))
        .properties(title="Condition-level effects of the numerical features with their intervals")
    )


def fully_aggregated_bar_chart(df, *, published_alpha: float) -> alt.LayerChart:
    """As published: mean min-max normalised bias per feature over all conditions, coloured by the share of
    conditions with raw p below the paper's level."""
    rule = as_published(published_alpha)
    order = df.sort_values("normalized_bias_mean", ascending=False)["feature"].tolist()
    base = alt.Chart(df).encode(y=alt.Y("feature:N", title="feature", sort=order))
    bars = base.mark_bar().encode(
        x=alt.X("normalized_bias_mean:Q", title="mean normalised bias (0-1)", scale=alt.Scale(domain=[0, 1])),
        color=alt.Color(
            "significance:N",
            title=f"conditions {rule}",
            scale=alt.Scale(domain=SIGNIFICANCE_LEVELS, range=SIGNIFICANCE_COLOURS),
        ),
        tooltip=tooltips(
            "feature:N",
            alt.Tooltip("normalized_bias_mean:Q", format=".3f"),
            alt.Tooltip("bias_mean:Q", title="raw bias (mean)", format=".3f"),
            alt.Tooltip("share_significant:Q", title=f"share {rule}", format=".0%"),
            alt.Tooltip("n_conditions:Q", title="conditions"),
        ),
    )
    markers = base.mark_text(align="left", dx=3).encode(x=alt.X("normalized_bias_mean:Q"), text=alt.Text("marker:N"))
    return (bars + markers).properties(
        title=f"Overall bias, {rule} (min-max normalised, fully aggregated)", width=420, height=alt.Step(18)
    )


def signed_bias_bar_chart(df, *, rule: str) -> alt.Chart:
    """Mean signed-normalised bias per feature, the direction min-max normalisation hides; a feature with at
    most half its conditions significant by ``rule`` is drawn grey."""
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
            tooltip=tooltips(
                "feature:N",
                alt.Tooltip("signed_normalized_bias_mean:Q", format=".3f"),
                alt.Tooltip("bias_mean:Q", title="raw bias (mean)", format=".3f"),
                alt.Tooltip("share_significant:Q", title=f"share {rule}", format=".0%"),
            ),
        )
        .transform_calculate(
            direction="datum.signed_normalized_bias_mean >= 0 ? 'favoured (> 0)' : 'disfavoured (< 0)'"
        )
        .properties(
            title=f"Overall signed bias (grey: at most half the conditions {rule}; Cramér's V has no sign)",
            width=420,
            height=alt.Step(18),
        )
    )
