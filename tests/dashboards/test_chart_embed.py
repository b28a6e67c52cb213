"""A chart on a page is the Vega-Lite spec Altair validates, legends never cut off; channels given as
objects give the spec of their shorthand strings."""

from __future__ import annotations

import json
import re

import altair as alt
import pandas as pd

from biaswh.dashboards.common.format import tooltips
from biaswh.dashboards.common.html import chart


def _embedded(page: str) -> dict:
    return json.loads(re.search(r'id="chart-\d+-spec">(.*?)</script>', page).group(1))


def test_a_page_embeds_the_schema_checked_spec_of_a_single_and_a_layered_chart():
    frame = pd.DataFrame({"k": [1, 5, 10], "recall": [0.2, 0.5, 0.7], "retriever": ["bm25 <dense>"] * 3})
    line = alt.Chart(frame).mark_line().encode(x="k:Q", y="recall:Q", color="retriever:N")
    for spec in (line, line + line.mark_point()):
        expected = spec.to_dict()  # checked against the Vega-Lite schema
        expected["config"]["legend"] = {"titleLimit": 0, "labelLimit": 0}
        page = chart(spec, name="recall at k")
        assert _embedded(page) == expected and "<dense>" not in page
        assert '"downloadFileName": "recall_at_k"' in page


def test_tooltips_and_channel_objects_give_the_spec_of_shorthand_strings():
    frame = pd.DataFrame({"k": [1, 5], "recall": [0.2, 0.5], "retriever": ["bm25", "dense"]})
    as_strings = (
        alt.Chart(frame)
        .mark_point()
        .encode(x="k:Q", color="retriever:N", tooltip=["retriever:N", alt.Tooltip("recall:Q", format=".3f"), "k:O"])
    )
    as_objects = (
        alt.Chart(frame)
        .mark_point()
        .encode(
            x=alt.X("k:Q"),
            color=alt.Color("retriever:N"),
            tooltip=tooltips("retriever:N", alt.Tooltip("recall:Q", format=".3f"), "k:O"),
        )
    )
    assert json.dumps(as_objects.to_dict()) == json.dumps(as_strings.to_dict())
    assert as_objects.to_dict()["encoding"]["tooltip"][2] == {"field": "k", "type": "ordinal"}
