"""Charts of a monitored system's series page: one function per chart, explicit field types."""

from __future__ import annotations

import altair as alt
import pandas as pd

from biaswh.dashboards.common.format import tooltips

# What a week's point says, in the legend's order (the page's sentences use the same words).
WEEK_STATUSES = ["within threshold", "breach, not significant", "significant breach"]
_STATUS_COLOURS = ["#4c78a8", "#f2a93b", "#d62728"]
EVENT_ORDER = ["opened", "resolved"]


def control_chart(weeks: pd.DataFrame, events: pd.DataFrame, *, title: str) -> alt.LayerChart:
    """One checked metric over the weeks: each week's value with its 95% bootstrap interval, the
    baseline's value, the threshold's limit, and the weeks an alert opened or resolved.

    ``weeks``: week (date), value, ci_low, ci_high, baseline_value, limit, status (a WEEK_STATUSES
    word), p_text; ``events``: week, event (opened or resolved).
    """
    x = alt.X("week:T", title="week", axis=alt.Axis(format="%Y-%m-%d", labelAngle=-40))
    base = alt.Chart(weeks).encode(x=x)
    interval = base.mark_rule(strokeWidth=2, opacity=0.6).encode(
        y=alt.Y("ci_low:Q", title="value", scale=alt.Scale(zero=False)), y2=alt.Y2("ci_high:Q")
    )
    baseline = base.mark_line(strokeDash=[2, 2], color="#555555").encode(y=alt.Y("baseline_value:Q"))
    limit = base.mark_line(strokeDash=[6, 3], color="#d62728").encode(y=alt.Y("limit:Q"))
    points = base.mark_point(filled=True, size=70).encode(
        y=alt.Y("value:Q"),
        color=alt.Color(
            "status:N",
            title="week",
            scale=alt.Scale(domain=WEEK_STATUSES, range=_STATUS_COLOURS),
            legend=alt.Legend(orient="bottom"),
        ),
        tooltip=tooltips(
            alt.Tooltip("week:T", format="%Y-%m-%d"),
            alt.Tooltip("value:Q", format=".3f"),
            alt.Tooltip("ci_low:Q", format=".3f", title="95% interval low"),
            alt.Tooltip("ci_high:Q", format=".3f", title="95% interval high"),
            alt.Tooltip("baseline_value:Q", format=".3f", title="baseline"),
            alt.Tooltip("limit:Q", format=".3f", title="threshold limit"),
            alt.Tooltip("p_text:N", title="paired test"),
        ),
    )
    layers = [interval, baseline, limit, points]
    if len(events):
        marks = alt.Chart(events).encode(
            x=alt.X("week:T"),
            color=alt.Color(
                "event:N", title="alert", scale=alt.Scale(domain=EVENT_ORDER, range=["#d62728", "#2ca02c"])
            ),
        )
        layers += [
            marks.mark_rule(strokeDash=[1, 3], strokeWidth=2),
            marks.mark_text(dy=-90, dx=4, align="left").encode(text=alt.Text("event:N")),
        ]
    return alt.layer(*layers).resolve_scale(color="independent").properties(width=560, height=200, title=title)


def latency_chart(weeks: pd.DataFrame) -> alt.Chart:
    """The system's per-query latency p50 and p95 (ms) each week; ``weeks``: week, quantile, ms."""
    return (
        alt.Chart(weeks)
        .mark_line(point=True)
        .encode(
            x=alt.X("week:T", title="week", axis=alt.Axis(format="%Y-%m-%d", labelAngle=-40)),
            y=alt.Y("ms:Q", title="latency per query (ms)"),
            color=alt.Color("quantile:N", title="quantile", sort=["p50", "p95"]),
            tooltip=tooltips(alt.Tooltip("week:T", format="%Y-%m-%d"), "quantile:N", alt.Tooltip("ms:Q", format=".1f")),
        )
        .properties(width=560, height=160, title="Latency per query, each week")
    )
