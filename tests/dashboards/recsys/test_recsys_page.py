"""The recommendation-bias charts' specs, and the page on a warehouse without recsys results."""

from __future__ import annotations

import pandas as pd

from biaswh.dashboards.recsys.charts import (
    MARKER_LEVELS,
    SIGNIFICANCE_COLOURS,
    aggregated_heatmap_chart,
    condition_heatmap_chart,
    condition_interval_chart,
    fully_aggregated_bar_chart,
    signed_aggregated_heatmap_chart,
    signed_bias_bar_chart,
    signed_condition_heatmap_chart,
)
from biaswh.dashboards.recsys.page import render

CELLS = pd.DataFrame(
    {
        "feature": ["a", "b"],
        "group_value": ["x", "y"],
        "dataset_model": ["t · o", "r · g"],
        "value": [0.2, 0.9],
        "label": ["0.20", "0.90***"],
        "bias_mean": [0.1, 0.5],
        "share_significant": [0.0, 1.0],
        "n_conditions": [3, 3],
    }
)
OVERALL = pd.DataFrame(
    {
        "feature": ["a", "b", "c"],
        "normalized_bias_mean": [0.2, 0.7, 0.4],
        "signed_normalized_bias_mean": [-0.3, 0.6, 0.1],
        "bias_mean": [-0.1, 0.3, 0.05],
        "share_significant": [0.1, 0.8, 0.55],
        "n_conditions": [54] * 3,
        "marker": ["", "***", "*"],
    }
)
OVERALL["significance"] = OVERALL["marker"].map(MARKER_LEVELS)
RULE = "significant after Holm within the result set, α = 0.01"


def test_heatmaps_colour_normalised_bias_on_a_fixed_0_to_1_scale_and_print_markers():
    for spec in (
        condition_heatmap_chart(CELLS, prompt_style="general", published_alpha=0.05).to_dict(),
        aggregated_heatmap_chart(CELLS, by="dataset", published_alpha=0.05).to_dict(),
    ):
        cells, labels = spec["layer"]
        assert cells["mark"]["type"] == "rect"
        assert cells["encoding"]["color"]["field"] == "value" and cells["encoding"]["color"]["type"] == "quantitative"
        assert cells["encoding"]["color"]["scale"]["domain"] == [0, 1]
        assert labels["encoding"]["text"] == {"field": "label", "type": "nominal"}
        assert cells["encoding"]["y"]["field"] == labels["encoding"]["y"]["field"] == "feature"
    # The min-max view is kept, labelled as the original's with its raw-p rule.
    assert (
        condition_heatmap_chart(CELLS, prompt_style="general", published_alpha=0.05)
        .to_dict()["title"]
        .startswith("Prompt style: general, as published (raw p < 0.05)")
    )


SIGNED = CELLS.assign(signed_normalized_bias_mean=[-0.4, 0.9], signed_label=["-0.40", "0.90***"])


def test_main_heatmaps_diverge_around_zero_on_the_signed_bias_and_mute_non_significant_cells():
    for spec in (
        signed_condition_heatmap_chart(SIGNED, prompt_style="general", rule=RULE).to_dict(),
        signed_aggregated_heatmap_chart(SIGNED, by="dataset", rule=RULE).to_dict(),
    ):
        cells, labels = spec["layer"]
        colour = cells["encoding"]["color"]
        assert colour["condition"]["test"] == "datum.share_significant > 0.5"
        assert colour["condition"]["field"] == "signed_normalized_bias_mean"
        assert colour["condition"]["type"] == "quantitative"
        assert colour["condition"]["scale"]["domain"] == [-1, 1] and colour["condition"]["scale"]["domainMid"] == 0
        assert colour["value"] == "#e8e8e8"  # muted: noise is not painted
        assert labels["encoding"]["text"] == {"field": "signed_label", "type": "nominal"}
    title = signed_condition_heatmap_chart(SIGNED, prompt_style="general", rule=RULE).to_dict()["title"]
    assert (
        title == "Prompt style: general (signed bias; grey: not significant after Holm within the result set, α = 0.01)"
    )


def test_condition_intervals_are_drawn_as_rules_from_ci_low_to_ci_high():
    df = pd.DataFrame(
        {
            "feature": ["text_length"] * 2,
            "condition": ["a · b · c", "d · e · f"],
            "hedges_g": [0.3, 0.01],
            "ci_low": [0.1, -0.2],
            "ci_high": [0.5, 0.2],
            "p_value": [0.01, 0.9],
            "p_value_adjusted": [0.03, 1.0],
            "significance": ["not significant", "not significant"],
        }
    )
    spec = condition_interval_chart(df, rule=RULE).to_dict()
    zero, interval, point = spec["spec"]["layer"]
    assert interval["mark"]["type"] == "rule"
    assert (interval["encoding"]["x"]["field"], interval["encoding"]["x2"]["field"]) == ("ci_low", "ci_high")
    assert point["encoding"]["x"] == {"field": "hedges_g", "type": "quantitative"}
    assert spec["facet"]["column"]["field"] == "feature"
    # the colour is the verdict, named by the policy, not raw p < 0.05
    assert point["encoding"]["color"]["title"] == RULE


def test_overall_bars_are_sorted_and_coloured_by_significance_level():
    spec = fully_aggregated_bar_chart(OVERALL, published_alpha=0.05).to_dict()
    bars = spec["layer"][0]
    assert bars["encoding"]["y"]["sort"] == ["b", "c", "a"]
    assert bars["encoding"]["color"]["field"] == "significance"
    assert bars["encoding"]["color"]["scale"]["range"] == SIGNIFICANCE_COLOURS
    assert set(OVERALL["significance"]) <= set(bars["encoding"]["color"]["scale"]["domain"])
    assert bars["encoding"]["color"]["title"] == "conditions as published (raw p < 0.05)"
    signed = signed_bias_bar_chart(OVERALL, rule=RULE).to_dict()
    assert signed["encoding"]["x"]["scale"]["domain"] == [-1, 1]
    assert signed["title"] == f"Overall signed bias (grey: at most half the conditions {RULE}; Cramér's V has no sign)"


def test_page_renders_a_note_before_any_build(con):
    assert "No recommendation-bias results yet" in render(con)
