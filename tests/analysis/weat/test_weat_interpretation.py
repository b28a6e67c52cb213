"""Magnitude labels, bias levels at their boundaries, direction sentences and the report counts."""

from __future__ import annotations

import pytest

from analysis.weat.interpretation import bias_level, direction_sentence, interpret, level_counts, magnitude_label


@pytest.mark.parametrize("d, label", [(0.0, "negligible"), (-0.19, "negligible"), (0.2, "small"),
                                      (-0.49, "small"), (0.5, "medium"), (0.79, "medium"), (-0.8, "large")])
def test_magnitude_labels(d, label):
    assert magnitude_label(d) == label


@pytest.mark.parametrize("d, p, level", [(0.9, 0.01, "high"), (-0.6, 0.049, "high"), (0.5, 0.01, "moderate"),
                                         (0.3, 0.04, "moderate"), (0.9, 0.05, "weak"), (0.25, 0.5, "weak"),
                                         (0.2, 0.001, "minimal"), (0.1, 0.9, "minimal")])
def test_bias_levels(d, p, level):
    assert bias_level(d, p) == level


def test_direction_follows_the_sign_of_d():
    labels = dict(x_label="male names", y_label="female names", a_label="career words", b_label="family words")
    assert direction_sentence(1.2, **labels).startswith("Male names are more associated with career words than"
                                                        " female names")
    assert direction_sentence(-0.4, **labels).startswith("Female names are more associated with career words"
                                                         " than male names")


def test_level_counts_list_every_level():
    counts = level_counts(["high", "high", "weak", "not computed"])
    assert counts == {"high": 2, "moderate": 0, "weak": 1, "minimal": 0, "not computed": 1}
    with pytest.raises(ValueError):
        level_counts(["severe"])


def test_a_negligible_effect_says_so_in_its_reading():
    reading = interpret(-0.04, 0.53, x_label="young people's names", y_label="old people's names",
                        a_label="pleasant words", b_label="unpleasant words")
    assert (reading.magnitude, reading.bias_level) == ("negligible", "minimal")
    assert reading.direction.endswith("The difference is negligible (|d| < 0.2).")
