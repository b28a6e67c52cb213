"""The one effect-size scale per statistic, at its boundaries."""

from __future__ import annotations

import pytest

from biaswh.stats.effect_sizes import magnitude, scale_note


@pytest.mark.parametrize(
    "statistic, value, word",
    [
        ("d", 0.19, "negligible"),
        ("d", -0.2, "small"),
        ("d", 0.49, "small"),
        ("d", 0.5, "medium"),
        ("d", 0.79, "medium"),
        ("d", 0.8, "large"),
        ("d", 0.96, "large"),  # the WEAT demo's d, once called "weak (large)"
        ("r", 0.09, "negligible"),
        ("r", 0.1, "small"),
        ("r", -0.3, "medium"),
        ("r", 0.5, "large"),
        ("cramers_v", 0.29, "small"),
        ("cramers_v", 0.5, "large"),
        ("r_squared", 0.019, "negligible"),
        ("r_squared", 0.02, "small"),
        ("r_squared", 0.13, "medium"),
        ("r_squared", 0.26, "large"),
    ],
)
def test_magnitude_words_follow_each_statistics_scale(statistic, value, word):
    assert magnitude(value, statistic=statistic) == word


def test_missing_values_and_unknown_statistics():
    assert magnitude(None, statistic="d") is None and magnitude(float("nan"), statistic="r") is None
    with pytest.raises(ValueError, match="^unknown statistic 'eta'; known: d, r, cramers_v, r_squared$"):
        magnitude(0.3, statistic="eta")


def test_the_scale_note_pages_print():
    assert scale_note("d") == "|d| 0.2 small, 0.5 medium, 0.8 large"
    assert scale_note("r_squared") == "R² 0.02 small, 0.13 medium, 0.26 large"
