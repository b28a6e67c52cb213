"""A chart on a page is the Vega-Lite spec Altair validates, legends never cut off."""

from __future__ import annotations

import json
import re

import altair as alt
import pandas as pd

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
