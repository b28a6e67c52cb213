"""Charts of the dialect study: one function per chart, explicit field types."""

from __future__ import annotations

import altair as alt

RANK_BIN_ORDER = ["1", "2-5", "6-10", "11-20", "21-50", "51+", "not found"]


def recall_at_k_chart(df) -> alt.FacetChart:
    """Recall@k per retriever: one line per variant with its Wilson interval band."""
    base = alt.Chart(df).encode(
        x=alt.X("k:Q", title="k", scale=alt.Scale(type="log")),
        color=alt.Color("variant:N", title="variant"),
    )
    band = base.mark_area(opacity=0.2).encode(y=alt.Y("recall_ci_low:Q", title="recall@k"), y2="recall_ci_high:Q")
    line = base.mark_line().encode(
        y="recall:Q", tooltip=["variant:N", "k:Q", alt.Tooltip("recall:Q", format=".3f")])
    return alt.layer(band, line).properties(width=220, height=180).facet(
        facet=alt.Facet("retriever:N", title=None), columns=3).properties(title="Recall@k by variant")


def rank_distribution_chart(df) -> alt.Chart:
    """How often the gold document lands at each rank band, per retriever and variant."""
    return alt.Chart(df).mark_bar().encode(
        x=alt.X("n_queries:Q", title="queries", stack="normalize"),
        y=alt.Y("variant:N", title=None),
        color=alt.Color("rank_bin:O", title="rank of gold", sort=RANK_BIN_ORDER,
                        scale=alt.Scale(scheme="viridis")),
        order=alt.Order("rank_order:Q"),
        row=alt.Row("retriever:N", title=None),
        tooltip=["retriever:N", "variant:N", "rank_bin:O", "n_queries:Q"],
    ).transform_calculate(
        rank_order=f"indexof({RANK_BIN_ORDER!r}, datum.rank_bin)"
    ).properties(width=500, height=40, title="Rank of the gold document")
