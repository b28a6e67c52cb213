"""Charts of the dialect study: one function per chart, explicit field types."""

from __future__ import annotations

import altair as alt

from biaswh.dashboards.common.format import PERCENT_AXIS, PERCENT_TOOLTIP, tooltips

RANK_BIN_ORDER = ["1", "2-5", "6-10", "11-20", "21-50", "51+", "not found"]


PAGE_WIDTH = 900  # pixels the facets of one row share
# The recall axis pads its data by this share of their range, and by at least the minimum (recall units).
AXIS_PADDING_SHARE = 0.05
MIN_AXIS_PADDING = 0.01


def recall_domain(df) -> list[float]:
    """The y range of the recall chart: the data and their interval bands, padded, within [0, 1]."""
    low, high = float(df["recall_ci_low"].min()), float(df["recall_ci_high"].max())
    pad = max(MIN_AXIS_PADDING, AXIS_PADDING_SHARE * (high - low))
    return [max(0.0, round(low - pad, 3)), min(1.0, round(high + pad, 3))]


def recall_at_k_chart(df, *, depth: int | None = None) -> alt.FacetChart:
    """Recall@k per retriever (one facet each, all in one row: no empty facet), one line per variant
    with its Wilson interval band; y fitted to the data and bands, x from k = 1 to the run's depth."""
    k_max = int(depth or df["k"].max())
    n_retrievers = max(1, df["retriever"].nunique())
    k_min = int(df["k"].min())
    # decades, and the depth: labels a facet's width keeps apart ("50" and "100" ran into "50100")
    ticks = [k for k in (1, 10, 100, 1000) if k_min <= k <= k_max]
    ticks += [k_max] if k_max not in ticks and k_max >= 2 * max(ticks, default=1) else []
    base = alt.Chart(df).encode(
        x=alt.X(
            "k:Q",
            title="k",
            scale=alt.Scale(type="log", domain=[k_min, k_max], nice=False),
            axis=alt.Axis(values=ticks, grid=False, labelOverlap="greedy"),
        ),
        color=alt.Color("variant:N", title="variant"),
    )
    y_scale = alt.Scale(domain=recall_domain(df), zero=False)
    band = base.mark_area(opacity=0.2, clip=True).encode(
        y=alt.Y("recall_ci_low:Q", title="recall@k", scale=y_scale, axis=alt.Axis(format=PERCENT_AXIS)),
        y2=alt.Y2("recall_ci_high:Q"),
    )
    line = base.mark_line(clip=True).encode(
        y=alt.Y("recall:Q", scale=y_scale),
        tooltip=tooltips(
            "retriever:N",
            "variant:N",
            "k:Q",
            alt.Tooltip("recall:Q", format=PERCENT_TOOLTIP),
            alt.Tooltip("recall_ci_low:Q", format=PERCENT_TOOLTIP),
            alt.Tooltip("recall_ci_high:Q", format=PERCENT_TOOLTIP),
        ),
    )
    width = max(120, min(220, PAGE_WIDTH // n_retrievers - 30))
    return (
        alt.layer(band, line)
        .properties(width=width, height=180)
        .facet(facet=alt.Facet("retriever:N", title=None), columns=n_retrievers)
        .properties(title="Recall@k by variant")
    )


def rank_distribution_chart(df) -> alt.Chart:
    """How often the gold document lands at each rank band, per retriever and variant."""
    return (
        alt.Chart(df)
        .mark_bar()
        .encode(
            x=alt.X("n_queries:Q", title="queries", stack="normalize"),
            y=alt.Y("variant:N", title=None),
            color=alt.Color("rank_bin:O", title="rank of gold", sort=RANK_BIN_ORDER, scale=alt.Scale(scheme="viridis")),
            order=alt.Order("rank_order:Q"),
            row=alt.Row("retriever:N", title=None),
            tooltip=tooltips("retriever:N", "variant:N", "rank_bin:O", "n_queries:Q"),
        )
        .transform_calculate(rank_order=f"indexof({RANK_BIN_ORDER!r}, datum.rank_bin)")
        .properties(width=500, height=40, title="Rank of the gold document")
    )
