"""Charts of the WEAT page: effect sizes with intervals, per-word associations (one function per chart)."""

from __future__ import annotations

import altair as alt

from biaswh.dashboards.common.format import natural_order, tooltips
from biaswh.stats.effect_sizes import scale_note


def effect_size_chart(df) -> alt.LayerChart:
    """Effect size d per test with its bootstrap interval; reference lines at ±0.2, ±0.5, ±0.8."""
    base = alt.Chart(df).encode(y=alt.Y("test_label:N", title=None, sort=natural_order(df["test_label"])))
    interval = base.mark_rule(strokeWidth=2).encode(
        x=alt.X("ci_low:Q", title="effect size d (bootstrap interval)"),
        x2=alt.X2("ci_high:Q"),
        color=alt.Color(
            "significance:N",
            title="after adjustment within the embedding",
            scale=alt.Scale(domain=["significant", "not significant"], range=["#cf222e", "#8c959f"]),
        ),
    )
    points = base.mark_point(filled=True, size=70).encode(
        x=alt.X("effect_size:Q"),
        color=alt.Color("significance:N"),
        tooltip=tooltips(
            "embedding:N",
            "test:N",
            alt.Tooltip("effect_size:Q", format=".3f"),
            alt.Tooltip("ci_low:Q", format=".3f"),
            alt.Tooltip("ci_high:Q", format=".3f"),
            alt.Tooltip("p_value:Q", format=".2g"),
            "p_method:N",
            "bias_level:N",
        ),
    )
    references = (
        alt.Chart(alt.Data(values=[{"d": v} for v in (-0.8, -0.5, -0.2, 0.0, 0.2, 0.5, 0.8)]))
        .mark_rule(strokeDash=[3, 3], color="#999")
        .encode(x=alt.X("d:Q"))
    )
    return alt.layer(references, interval, points).properties(title=f"WEAT effect sizes ({scale_note('d')})", width=600)


def word_association_chart(df) -> alt.FacetChart:
    """Strip plot of s(w, A, B) for every used target word, one row per test, coloured by target set.

    Each test has its own x scale: a sentence encoder's associations are an order of magnitude
    smaller than a word embedding's, and one shared axis would squash them to a line.
    """
    return (
        alt.Chart(df)
        .mark_tick(thickness=2, size=12)
        .encode(
            x=alt.X("association:Q", title=None),
            y=alt.Y("set_role:N", title=None, axis=alt.Axis(labels=False, ticks=False)),
            color=alt.Color(
                "set_role:N",
                title="target set",
                scale=alt.Scale(domain=["target_x", "target_y"], range=["#0969da", "#bf8700"]),
            ),
            tooltip=tooltips(
                "test:N", "set_label:N", "word:N", "matched_word:N", alt.Tooltip("association:Q", format=".4f")
            ),
        )
        .properties(width=600, height=32)
        .facet(
            row=alt.Row(
                "test_label:N",
                title=None,
                sort=natural_order(df["test_label"]),
                header=alt.Header(labelAngle=0, labelAlign="left"),
            ),
            spacing=6,
        )
        .resolve_scale(x="independent")
        .properties(
            title=alt.Title(
                "Per-word association of the target words (X blue, Y amber), each test on its own scale",
                subtitle="s(w, A, B) = mean cos(w, A) − mean cos(w, B)",
            )
        )
    )
