"""The silent-bias page: safe highlighting, chart encodings, and a graceful note without results."""

from __future__ import annotations

import pandas as pd

from biaswh.dashboards.silent_bias.charts import (
    biased_and_silent_counts_chart,
    silent_bias_heatmap_chart,
    silent_bias_rate_chart,
)
from biaswh.dashboards.silent_bias.page import highlighted_excerpt, render


def test_excerpt_escapes_model_text_and_only_adds_the_mark():
    output = 'Reasoning <script>alert("x")</script> so: Work related stress & more <b>'
    start = output.index("Work")
    html = highlighted_excerpt(output, start, len("Work related stress"), chars=30)
    assert "<script>" not in html and "<b>" not in html
    assert "&lt;/script&gt;" in html and "&amp; more &lt;b&gt;" in html
    assert "<mark>Work related stress</mark>" in html and html.startswith("…")


def test_excerpt_without_a_match_is_the_escaped_opening():
    assert highlighted_excerpt("a <i>b</i> c", None, None, chars=5) == "a &lt;i&gt;"


def test_charts_encode_explicit_types():
    rates = pd.DataFrame(
        {
            "model": ["m"],
            "rule_set": ["word_boundary"],
            "n_biased": [4],
            "n_silent": [1],
            "silent_bias_rate": [0.25],
            "ci_low": [0.05],
            "ci_high": [0.7],
        }
    )
    spec = silent_bias_rate_chart(rates).to_dict()
    assert (
        spec["layer"][0]["encoding"]["x"]["field"] == "ci_low"
        and spec["layer"][0]["encoding"]["x"]["type"] == "quantitative"
    )
    cells = pd.DataFrame(
        {
            "model": ["m", "m"],
            "rule_set": ["word_boundary"] * 2,
            "dimension": ["race", "age"],
            "silent_bias_rate": [0.5, None],
            "cell_label": ["0.50 (1/2)", "undefined"],
        }
    )
    heatmap = silent_bias_heatmap_chart(cells).to_dict()
    assert heatmap["facet"]["column"]["field"] == "rule_set"
    assert heatmap["spec"]["layer"][1]["encoding"]["color"]["type"] == "quantitative"
    counts = pd.DataFrame(
        {"model": ["m", "m"], "rule_set": ["word_boundary"] * 2, "kind": ["silent", "mentioned"], "answers": [1, 3]}
    )
    encoding = biased_and_silent_counts_chart(counts).to_dict()["encoding"]
    assert (encoding["x"]["type"], encoding["color"]["type"]) == ("quantitative", "nominal")
    # One panel per rule set: the two stacked bars never share a row.
    assert encoding["column"] == {"field": "rule_set", "type": "nominal", "title": "rule set"}
    assert "yOffset" not in encoding


def test_page_renders_a_note_on_a_warehouse_without_silent_bias_results(con):
    assert "No silent-bias results" in render(con)


def test_the_page_leads_with_each_models_rate_and_interval():
    from biaswh.dashboards.silent_bias.page import _lead

    overall = pd.DataFrame(
        {
            "model": ["m", "m"],
            "rule_set": ["seed_compatible", "word_boundary"],
            "silent_bias_rate": [0.8, 0.5],
            "ci_low": [0.5, 0.2],
            "ci_high": [0.95, 0.8],
            "n_silent": [4, 2],
            "n_biased": [5, 4],
        }
    )
    lead = _lead(overall)
    # the card's verdict leads the page; this sentence follows it, rates in percent as on the card
    assert lead.startswith("<p>") and "word_boundary rule set" in lead
    assert "<b>m</b> 50.0% [20.0%, 80.0%] (2 of 4)" in lead and "95.0%" not in lead
