"""The paper-figure charts' specs: fields, types, scales and the figure each draws."""

from __future__ import annotations

import pandas as pd

from biaswh.dashboards.recsys.charts import MARKER_LEVELS
from biaswh.dashboards.recsys.figure_charts import (
    demographic_bar_chart,
    directional_heatmap_chart,
    importance_heatmap_chart,
    prompt_heatmap_chart,
    r_squared_bar_chart,
)

OVERALL = pd.DataFrame(
    {
        "feature": ["a", "b", "<script>"],
        "r_squared_mean": [0.01, 0.05, 0.002],
        "share_significant": [0.55, 0.9, 0.1],
        "n_conditions": [54, 54, 18],
        "marker": ["*", "***", ""],
    }
)
OVERALL["significance"] = OVERALL["marker"].map(MARKER_LEVELS)


def test_r_squared_bars_sort_by_effect_size_and_print_markers():
    spec = r_squared_bar_chart(
        OVERALL, rule="significant after Benjamini-Hochberg within the result set, α = 0.01"
    ).to_dict()
    bars, markers = spec["layer"]
    assert bars["encoding"]["color"]["title"] == (
        "conditions significant after Benjamini-Hochberg within the result set, α = 0.01"
    )
    assert bars["mark"]["type"] == "bar" and bars["encoding"]["x"] == {
        "field": "r_squared_mean",
        "type": "quantitative",
        "title": "mean R² (variance explained)",
    }
    assert bars["encoding"]["y"]["sort"] == ["b", "a", "<script>"]
    assert markers["encoding"]["text"] == {"field": "marker", "type": "nominal"}


def test_prompt_heatmaps_are_sequential_for_r_squared_and_diverging_for_the_standardised_bias():
    df = pd.DataFrame({"feature": ["a", "a"], "prompt_style": ["general", "neutral"], "v": [0.1, -0.1]})
    sequential = prompt_heatmap_chart(df, value="v", title="t", legend="l", diverging=False).to_dict()
    diverging = prompt_heatmap_chart(df, value="v", title="t", legend="l", diverging=True).to_dict()
    assert "domainMid" not in sequential["layer"][0]["encoding"]["color"]["scale"]
    assert diverging["layer"][0]["encoding"]["color"]["scale"]["domainMid"] == 0
    assert diverging["layer"][0]["encoding"]["x"]["field"] == "prompt_style"


def test_directional_heatmap_diverges_at_zero_and_names_its_axes():
    df = pd.DataFrame({"m": ["x · y"], "feature": ["toxicity"], "directional_bias_mean": [0.02], "n_conditions": [3]})
    spec = directional_heatmap_chart(df, x="m", x_title="model", y="feature", y_title="feature", title="t").to_dict()
    assert spec["mark"]["type"] == "rect"
    assert spec["encoding"]["color"]["field"] == "directional_bias_mean"
    assert spec["encoding"]["color"]["scale"]["domainMid"] == 0
    assert spec["encoding"]["x"]["title"] == "model"


def test_demographic_bars_group_by_model_with_sd_whiskers():
    df = pd.DataFrame(
        {
            "category": ["female", "female"],
            "provider": ["openai", "gemini"],
            "directional_bias_mean": [0.02, -0.01],
            "directional_bias_sd": [0.01, 0.02],
        }
    )
    bars, whiskers = demographic_bar_chart(df, feature="author_gender").to_dict()["layer"]
    assert bars["encoding"]["xOffset"]["field"] == "provider"
    assert whiskers["mark"]["type"] == "rule" and whiskers["encoding"]["y2"]["field"] == "high"


def test_importance_heatmap_prints_the_importance():
    df = pd.DataFrame({"feature": ["a"], "model": ["openai"], "importance": [0.1]})
    cells, labels = importance_heatmap_chart(df).to_dict()["layer"]
    assert cells["encoding"]["color"]["field"] == "importance" and labels["encoding"]["text"]["format"] == ".3f"
