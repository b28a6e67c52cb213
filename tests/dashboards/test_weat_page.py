"""The WEAT page's charts (checked through their specs) and its note on a warehouse without WEAT results."""

from __future__ import annotations

import pandas as pd

from dashboards.pages.weat import effect_size_chart, render, word_association_chart


def test_effect_size_chart_has_intervals_reference_lines_and_significance_colours():
    df = pd.DataFrame({"embedding": ["e", "e"], "test": ["weat1", "weat2"], "test_label": ["e / weat1", "e / weat2"],
                       "effect_size": [1.5, 0.1], "ci_low": [1.2, -0.3], "ci_high": [1.7, 0.5],
                       "p_value": [0.001, 0.4], "p_method": ["exact", "randomised"],
                       "significance": ["p < 0.05", "p ≥ 0.05"], "bias_level": ["high", "minimal"]})
    spec = effect_size_chart(df).to_dict()
    layers = spec["layer"]
    assert sorted(v["d"] for v in layers[0]["data"]["values"]) == [-0.8, -0.5, -0.2, 0.0, 0.2, 0.5, 0.8]
    assert layers[1]["encoding"]["x"]["field"] == "ci_low" and layers[1]["encoding"]["x2"]["field"] == "ci_high"
    assert layers[2]["encoding"]["color"]["field"] == "significance"
    assert layers[2]["encoding"]["x"]["type"] == "quantitative"


def test_word_association_chart_is_a_strip_per_test():
    df = pd.DataFrame({"test_label": ["e / t"] * 2, "test": ["t"] * 2, "set_role": ["target_x", "target_y"],
                       "set_label": ["x", "y"], "word": ["a", "b"], "matched_word": ["a", "b"],
                       "association": [0.1, -0.1]})
    spec = word_association_chart(df).to_dict()
    assert spec["mark"]["type"] == "tick"
    assert spec["encoding"]["x"]["field"] == "association" and spec["encoding"]["yOffset"]["field"] == "set_role"


def test_page_renders_a_note_without_weat_tables(con):
    assert "No WEAT results in this warehouse yet" in render(con)
