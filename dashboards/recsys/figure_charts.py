"""Charts of the paper's figures (R² effect sizes, directional bias, feature importance).

One function per chart, explicit field types; each takes a pandas DataFrame already shaped
by dashboards/recsys/figures.py. Labels come from the data as plain text (Vega escapes them).
"""

from __future__ import annotations

import altair as alt

from biaswh.dashboards.common.format import cell_text_colour, dark_threshold, tooltips
from biaswh.dashboards.recsys.charts import SIGNIFICANCE_COLOURS, SIGNIFICANCE_LEVELS


def diverging_scale(values) -> alt.Scale:
    """Red-blue centred at 0 on a symmetric domain (a one-signed domain would put its middle outside)."""
    finite = [abs(float(v)) for v in values if v == v and v is not None]
    largest = max(finite, default=0.0) or 1.0
    return alt.Scale(scheme="redblue", reverse=True, domain=[-largest, largest], domainMid=0)


def r_squared_bar_chart(df, *, rule: str) -> alt.LayerChart:
    """Figure 01: mean R² per feature over its conditions, coloured by the share of conditions significant
    by ``rule`` (the verdict policy's, or "as published (raw p < 0.05)")."""
    order = df.sort_values("r_squared_mean", ascending=False)["feature"].tolist()
    base = alt.Chart(df).encode(y=alt.Y("feature:N", title="feature", sort=order))
    bars = base.mark_bar().encode(
        x=alt.X("r_squared_mean:Q", title="mean R² (variance explained)"),
        color=alt.Color(
            "significance:N",
            title=f"conditions {rule}",
            scale=alt.Scale(domain=SIGNIFICANCE_LEVELS, range=SIGNIFICANCE_COLOURS),
        ),
        tooltip=tooltips(
            "feature:N",
            alt.Tooltip("r_squared_mean:Q", title="mean R²", format=".4f"),
            alt.Tooltip("share_significant:Q", title=f"share {rule}", format=".0%"),
            alt.Tooltip("n_conditions:Q", title="conditions"),
        ),
    )
    markers = base.mark_text(align="left", dx=3).encode(x=alt.X("r_squared_mean:Q"), text=alt.Text("marker:N"))
    return (bars + markers).properties(
        title="Mean R² per feature (Cohen's d: d²/(d²+4); Cramér's V: V²)", width=420, height=alt.Step(18)
    )


def prompt_heatmap_chart(df, *, value: str, title: str, legend: str, diverging: bool) -> alt.LayerChart:
    """Figures 02 and 03: one value per feature × prompt style, with the value printed in the cell."""
    scale = diverging_scale(df[value]) if diverging else alt.Scale(scheme="yelloworangered")
    base = alt.Chart(df).encode(
        x=alt.X("prompt_style:N", title="prompt style", axis=alt.Axis(labelAngle=-40)),
        y=alt.Y("feature:N", title="feature"),
    )
    cells = base.mark_rect().encode(
        color=alt.Color(f"{value}:Q", title=legend, scale=scale),
        tooltip=tooltips("feature:N", "prompt_style:N", alt.Tooltip(f"{value}:Q", format=".4f")),
    )
    labels = base.mark_text(fontSize=9).encode(
        text=alt.Text(f"{value}:Q", format=".3f"),
        color=cell_text_colour(value, dark_threshold(df[value]), absolute=diverging),
    )
    return (cells + labels).properties(title=title, width=360, height=alt.Step(18))


def directional_heatmap_chart(df, *, x: str, x_title: str, y: str, y_title: str, title: str) -> alt.Chart:
    """Figures 05, 06, 08, 09, 10: mean directional bias (recommended minus pool) on a scale diverging at 0."""
    return (
        alt.Chart(df)
        .mark_rect()
        .encode(
            x=alt.X(f"{x}:N", title=x_title, axis=alt.Axis(labelAngle=-40)),
            y=alt.Y(f"{y}:N", title=y_title),
            color=alt.Color(
                "directional_bias_mean:Q",
                title="recommended − pool",
                scale=diverging_scale(df["directional_bias_mean"]),
            ),
            tooltip=tooltips(
                alt.Tooltip(f"{y}:N", title=y_title),
                alt.Tooltip(f"{x}:N", title=x_title),
                alt.Tooltip("directional_bias_mean:Q", title="recommended − pool", format=".4f"),
                alt.Tooltip("n_conditions:Q", title="conditions"),
            ),
        )
        .properties(title=title, width=max(160, 22 * df[x].nunique()), height=alt.Step(16))
    )


def demographic_bar_chart(df, *, feature: str) -> alt.LayerChart:
    """Figure 04: over- or under-selection of each author category per model on twitter, ± 1 SD over prompt styles."""
    base = alt.Chart(df).encode(
        x=alt.X("category:N", title=feature),
        xOffset=alt.XOffset("provider:N"),
        color=alt.Color("provider:N", title="model"),
    )
    bars = base.mark_bar().encode(
        y=alt.Y("directional_bias_mean:Q", title="share recommended − share in pool"),
        tooltip=tooltips(
            alt.Tooltip("provider:N", title="model"),
            "category:N",
            alt.Tooltip("directional_bias_mean:Q", title="mean", format=".4f"),
            alt.Tooltip("directional_bias_sd:Q", title="SD over prompt styles", format=".4f"),
        ),
    )
    whiskers = (
        base.mark_rule(color="black")
        .encode(y=alt.Y("low:Q"), y2=alt.Y2("high:Q"))
        .transform_calculate(
            low="datum.directional_bias_mean - datum.directional_bias_sd",
            high="datum.directional_bias_mean + datum.directional_bias_sd",
        )
    )
    return (bars + whiskers).properties(title=f"{feature} on twitter (mean over prompt styles ± 1 SD)", width=360)


def importance_heatmap_chart(df, *, legend: str = "mean |SHAP|") -> alt.LayerChart:
    """Figure 07: mean importance per feature × model (all datasets, as the paper), with its value."""
    base = alt.Chart(df).encode(
        x=alt.X("model:N", title="model", axis=alt.Axis(labelAngle=-40)), y=alt.Y("feature:N", title="feature")
    )
    cells = base.mark_rect().encode(
        color=alt.Color("importance:Q", title=legend, scale=alt.Scale(scheme="yelloworangered")),
        tooltip=tooltips("feature:N", "model:N", alt.Tooltip("importance:Q", format=".4f")),
    )
    labels = base.mark_text(fontSize=9).encode(
        text=alt.Text("importance:Q", format=".3f"),
        color=cell_text_colour("importance", dark_threshold(df["importance"])),
    )
    return (cells + labels).properties(
        title="Feature importance for predicting selection", width=240, height=alt.Step(18)
    )
