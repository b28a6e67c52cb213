"""The WEAT page's charts (checked through their specs) and its note on a warehouse without WEAT results."""

from __future__ import annotations

import pandas as pd

from biaswh.dashboards.weat.page import effect_size_chart, render, word_association_chart


def test_effect_size_chart_has_intervals_reference_lines_and_significance_colours():
    df = pd.DataFrame(
        {
            "embedding": ["e", "e"],
            "test": ["weat1", "weat2"],
            "test_label": ["e / weat1", "e / weat2"],
            "effect_size": [1.5, 0.1],
            "ci_low": [1.2, -0.3],
            "ci_high": [1.7, 0.5],
            "p_value": [0.001, 0.4],
            "p_method": ["exact", "randomised"],
            "significance": ["significant", "not significant"],
            "bias_level": ["high", "minimal"],
        }
    )
    spec = effect_size_chart(df).to_dict()
    layers = spec["layer"]
    assert sorted(v["d"] for v in layers[0]["data"]["values"]) == [-0.8, -0.5, -0.2, 0.0, 0.2, 0.5, 0.8]
    assert layers[1]["encoding"]["x"]["field"] == "ci_low" and layers[1]["encoding"]["x2"]["field"] == "ci_high"
    assert layers[2]["encoding"]["color"]["field"] == "significance"
    assert layers[2]["encoding"]["x"]["type"] == "quantitative"


def test_word_association_chart_is_a_strip_per_test():
    df = pd.DataFrame(
        {
            "test_label": ["e / t"] * 2,
            "test": ["t"] * 2,
            "set_role": ["target_x", "target_y"],
            "set_label": ["x", "y"],
            "word": ["a", "b"],
            "matched_word": ["a", "b"],
            "association": [0.1, -0.1],
        }
    )
    spec = word_association_chart(df).to_dict()
    assert spec["spec"]["mark"]["type"] == "tick"
    inner = spec["spec"]["encoding"]
    assert inner["x"]["field"] == "association" and inner["y"]["field"] == "set_role"
    assert spec["facet"]["row"]["field"] == "test_label" and spec["resolve"]["scale"]["x"] == "independent"


def test_page_renders_a_note_without_weat_tables(con):
    assert "No WEAT results in this warehouse yet" in render(con)


def test_results_table_gives_the_reading_room_and_never_a_direction_for_a_null():
    from biaswh.dashboards.weat.page import _results_table

    results = pd.DataFrame(
        {
            "embedding": ["e"],
            "test_set": ["s"],
            "test": ["weat3"],
            "test_title": ["WEAT 3"],
            "status": ["computed"],
            "status_reason": [None],
            "coverage": [1.0],
            "n_target_x": [32],
            "n_target_y": [32],
            "n_attribute_a": [25],
            "n_attribute_b": [25],
            "effect_size": [0.27],
            "ci_low": [-0.19],
            "ci_high": [0.73],
            "p_value": [0.14],
            "p_method": ["randomised"],
            "n_permutations": [100000],
            "match_policy": ["exact"],
            "magnitude": ["small"],
            "bias_level": ["not significant"],
            "direction": ["No evidence of a difference (d 0.27, 95% CI [-0.19, 0.73])."],
            "p_adjusted": [0.42],
            "adjustment": ["Holm"],
            "family_size": [3],
            "is_significant": [False],
        }
    )
    html = _results_table(results)
    assert '<table class="weat-results">' in html and html.count("<th>") == 8
    assert "0.27 [-0.19, 0.73]" in html and "No evidence of a difference" in html
    # the adjusted p and its family beside the raw one
    assert "Holm: 0.42 (3 tests in e)" in html and "not significant (small)" in html


def _metric_row(metric, attribute_set, value, **extra):
    return {
        "embedding": "w2v",
        "test_set": "s",
        "test": "weat1",
        "metric": metric,
        "attribute_set": attribute_set,
        "status": "computed",
        "value": value,
        "ci_low": value - 0.1,
        "ci_high": value + 0.1,
        "spread_low": None,
        "spread_high": None,
        "p_holm": None,
        "p_adjusted": None,
        "adjustment": None,
        "alpha": None,
        "is_significant": None,
        "weat_sign": 0,
        "vectors": "unit",
        "details": "{}",
        **extra,
    }


def test_metrics_table_puts_the_word_set_interval_beside_d_and_signs_rnsb():
    from biaswh.dashboards.weat.metric_sections import influential_words_table, metrics_table

    influential = '{"most_influential": [{"word": "<b>rose</b>", "set_role": "target_x", "d_without": 1.1}]}'
    rows = [
        _metric_row("d_word_sets", "both", 1.5, spread_low=1.1, spread_high=1.6, details=influential),
        _metric_row(
            "rnd", "attribute_a", -0.05, p_adjusted=0.004, adjustment="Benjamini-Hochberg", is_significant=True
        ),
        _metric_row(
            "rnsb",
            "both",
            0.12,
            weat_sign=1,
            spread_low=0.07,
            spread_high=0.14,
            p_adjusted=0.02,
            adjustment="Benjamini-Hochberg",
            alpha=0.01,
            is_significant=False,
        ),
        _metric_row("ect", "attribute_b", 0.9, p_holm=0.03),  # a run judged before the policy: its Holm p
        {**_metric_row("ect", "attribute_a", 0.0), "status": "undefined", "value": None},
    ]
    html = metrics_table(rows)
    assert "<b>1.50</b> [1.40, 1.60]<br>leave one out [1.10, 1.60]" in html
    assert "<b>-0.050</b> [-0.150, 0.050]<br>p<sub>Benjamini-Hochberg</sub> 0.0040, significant" in html
    assert "p<sub>Benjamini-Hochberg</sub> 0.020, no evidence" in html
    assert "<b>0.90</b> [0.80, 1.00]<br>p<sub>Holm</sub> 0.030" in html
    assert "(X→A)" in html and "splits [0.070, 0.140]" in html
    assert "undefined" in html and "RIPA A" not in html  # only the metrics the run computed get a column
    words = influential_words_table(rows)
    assert "&lt;b&gt;rose&lt;/b&gt; (target_x: d 1.10)" in words and "<b>rose" not in words
