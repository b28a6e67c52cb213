"""Charts of the retrieval evaluation: one function per chart, explicit field types."""

from __future__ import annotations

import altair as alt

from biaswh.dashboards.common.format import tooltips

FOUND_BY_ORDER = ["both", "dense_only", "bm25_only", "neither"]
SEVERITY_ORDER = ["high", "medium", "low"]


def metrics_at_k_chart(df) -> alt.FacetChart:
    """Each metric against k, one line per retriever, with its bootstrap interval band; x spans the data's k."""
    k_min, k_max = int(df["k"].min()), int(df["k"].max())
    ticks = [k for k in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000) if k_min <= k <= k_max]
    base = alt.Chart(df).encode(
        x=alt.X(
            "k:Q",
            title="k",
            scale=alt.Scale(type="log", domain=[k_min, k_max], nice=False),
            axis=alt.Axis(values=ticks),
        ),
        color=alt.Color(
            "retriever:N", title="system", legend=alt.Legend(labelLimit=320, titleLimit=320, orient="bottom", columns=3)
        ),
    )
    band = base.mark_area(opacity=0.15).encode(y=alt.Y("ci_low:Q", title="mean over queries"), y2=alt.Y2("ci_high:Q"))
    line = base.mark_line(point=True).encode(
        y=alt.Y("value:Q"),
        tooltip=tooltips(
            "retriever:N",
            "metric:N",
            "k:Q",
            alt.Tooltip("value:Q", format=".3f"),
            alt.Tooltip("ci_low:Q", format=".3f"),
            alt.Tooltip("ci_high:Q", format=".3f"),
        ),
    )
    return (
        alt.layer(band, line)
        .properties(width=200, height=150)
        .facet(facet=alt.Facet("metric:N", title=None), columns=4)
        .resolve_scale(y="independent")
        .properties(title="Metrics at k, every system of the series")
    )


def fusion_sweep_chart(df) -> alt.FacetChart:
    """The selection metric of every fusion point on the tune and report folds."""
    return (
        alt.Chart(df)
        .mark_line(point=True)
        .encode(
            x=alt.X("parameter:Q", title="bm25 weight (min-max) / RRF constant"),
            y=alt.Y("value:Q", title="selection metric", scale=alt.Scale(zero=False)),
            color=alt.Color("fold:N", title="fold"),
            tooltip=tooltips(
                "retriever:N", "fold:N", "parameter:Q", alt.Tooltip("value:Q", format=".4f"), "n_queries:Q"
            ),
        )
        .properties(width=320, height=200)
        .facet(column=alt.Column("retriever_family:N", title=None))
        .resolve_scale(x="independent")
        .properties(title="Fusion sweep: chosen on tune, reported on report")
    )


def overlap_chart(df) -> alt.Chart:
    """Share of relevant documents found by dense only, BM25 only, both or neither, per run."""
    return (
        alt.Chart(df)
        .mark_bar()
        .encode(
            x=alt.X("share:Q", title="share of relevant documents", stack="normalize"),
            y=alt.Y("label:N", title=None, sort=alt.SortField("position")),
            color=alt.Color("found_by:N", title="found by", sort=FOUND_BY_ORDER),
            order=alt.Order("found_order:Q"),
            tooltip=tooltips("label:N", "found_by:N", alt.Tooltip("share:Q", format=".3f"), "n_documents:Q"),
        )
        .transform_calculate(found_order=f"indexof({FOUND_BY_ORDER!r}, datum.found_by)")
        .properties(width=500, height=30 * max(1, df["label"].nunique()), title="Dense vs BM25: who finds what")
    )


def drift_chart(df) -> alt.FacetChart:
    """Each checked metric over the series: one line per retriever, the threshold as a rule, alerts marked."""
    base = alt.Chart().encode(x=alt.X("label:N", title="run", sort=alt.SortField("position")))
    line = base.mark_line(point=True).encode(
        y=alt.Y("value:Q", title="value", scale=alt.Scale(zero=False)),
        color=alt.Color("retriever:N"),
        tooltip=tooltips(
            "label:N",
            "retriever:N",
            "metric:N",
            alt.Tooltip("value:Q", format=".4g"),
            alt.Tooltip("baseline_value:Q", format=".4g"),
            "severity:N",
        ),
    )
    rule = (
        alt.Chart()
        .mark_rule(strokeDash=[4, 4], color="gray")
        .encode(y=alt.Y("threshold:Q"))
        .transform_filter("datum.direction != 'drop_pct'")
    )
    alerts = base.mark_point(shape="triangle-down", size=120, filled=True).encode(
        y=alt.Y("value:Q"),
        fill=alt.Fill(
            "severity:N",
            sort=SEVERITY_ORDER,
            scale=alt.Scale(domain=SEVERITY_ORDER, range=["#c0392b", "#e67e22", "#f1c40f"]),
        ),
        stroke=alt.value("black"),
        # drawn on every check and hidden where no threshold is breached: a filtered layer
        # would be empty in a panel without alerts, and Vega warns of its infinite extent
        opacity=alt.condition("datum.is_breached", alt.value(1), alt.value(0)),
        tooltip=tooltips(
            "label:N", "retriever:N", "metric:N", "severity:N", alt.Tooltip("significant:N", title="significant")
        ),
    )
    return (
        alt.layer(line, rule, alerts, data=df)
        .properties(width=260, height=170)
        .facet(facet=alt.Facet("metric:N", title=None), columns=3)
        .resolve_scale(y="independent")
        .properties(title="Drift series: thresholds (dashed) and alerts (triangles)")
    )


def latency_chart(df) -> alt.FacetChart:
    """Latency p50 and p95 per retriever and run."""
    return (
        alt.Chart(df)
        .mark_bar()
        .encode(
            x=alt.X("latency_ms:Q", title="milliseconds per query"),
            y=alt.Y("label:N", title=None, sort=alt.SortField("position")),
            color=alt.Color("percentile:N", title="percentile"),
            yOffset=alt.YOffset("percentile:N"),
            tooltip=tooltips("label:N", "retriever:N", "percentile:N", alt.Tooltip("latency_ms:Q", format=".3f")),
        )
        .properties(width=240, height=120)
        .facet(facet=alt.Facet("retriever:N", title=None), columns=2)
        .properties(title="Latency per run")
    )
