"""Magnitude labels, bias levels at their boundaries, direction sentences and the report counts."""

from __future__ import annotations

import pytest

from biaswh.analysis.weat.interpretation import bias_level, direction_sentence, interpret, level_counts, magnitude_label


@pytest.mark.parametrize(
    "d, label",
    [
        (0.0, "negligible"),
        (-0.19, "negligible"),
        (0.2, "small"),
        (-0.49, "small"),
        (0.5, "medium"),
        (0.79, "medium"),
        (-0.8, "large"),
    ],
)
def test_magnitude_labels(d, label):
    assert magnitude_label(d) == label


@pytest.mark.parametrize(
    "d, significant, level",
    [
        (0.9, True, "high"),
        (-0.8, True, "high"),
        (0.79, True, "moderate"),
        (-0.5, True, "moderate"),
        (0.3, True, "weak"),
        (0.2, True, "weak"),
        (0.19, True, "minimal"),
        (0.96, False, "not significant"),  # never "weak (large)": a level is a significant result's magnitude
        (0.1, False, "not significant"),
    ],
)
def test_bias_levels(d, significant, level):
    assert bias_level(d, significant) == level


def test_a_level_always_agrees_with_its_magnitude():
    words = {"x_label": "x", "y_label": "y", "a_label": "a", "b_label": "b"}
    levels = {"large": "high", "medium": "moderate", "small": "weak", "negligible": "minimal"}
    for d in (0.05, 0.3, -0.6, 0.96, -1.4):
        reading = interpret(d, 0.001, ci_low=d - 0.01, ci_high=d + 0.01, **words)  # interval excludes 0
        assert reading.bias_level == levels[reading.magnitude]
    assert interpret(0.96, 0.2, **words).bias_level == "not significant"


def test_direction_follows_the_sign_of_d():
    labels = dict(x_label="male names", y_label="female names", a_label="career words", b_label="family words")
    assert direction_sentence(1.2, **labels).startswith(
        "Male names are more associated with career words than female names"
    )
    assert direction_sentence(-0.4, **labels).startswith(
        "Female names are more associated with career words than male names"
    )


def test_level_counts_list_every_level():
    counts = level_counts(["high", "high", "weak", "not computed"])
    assert counts == {"high": 2, "moderate": 0, "weak": 1, "minimal": 0, "not significant": 0, "not computed": 1}
    with pytest.raises(ValueError):
        level_counts(["severe"])


def test_a_negligible_significant_effect_says_so_in_its_reading():
    reading = interpret(
        -0.04,
        0.01,
        x_label="young people's names",
        y_label="old people's names",
        a_label="pleasant words",
        b_label="unpleasant words",
        ci_low=-0.07,
        ci_high=-0.01,
    )
    assert (reading.magnitude, reading.bias_level) == ("negligible", "minimal")
    assert reading.direction.endswith("The difference is negligible (|d| < 0.2).")


LABELS = dict(
    x_label="European American names",
    y_label="African American names",
    a_label="pleasant words",
    b_label="unpleasant words",
)


def test_a_null_result_claims_no_direction():
    # d 0.27, interval [-0.19, 0.73], p 0.14 must not read "European American names are more ...".
    reading = interpret(0.27, 0.14, ci_low=-0.19, ci_high=0.73, **LABELS)
    assert reading.direction == "No evidence of a difference (d 0.27, 95% CI [-0.19, 0.73])."
    assert "more associated" not in reading.direction


def test_a_small_p_with_an_interval_spanning_zero_is_still_null():
    reading = interpret(0.4, 0.03, ci_low=-0.05, ci_high=0.8, **LABELS)
    assert reading.direction.startswith("No evidence of a difference (d 0.40, 95% CI [-0.05, 0.80])")


def test_a_significant_result_states_its_direction():
    reading = interpret(-0.9, 0.001, ci_low=-1.3, ci_high=-0.5, **LABELS)
    assert reading.direction.startswith("African American names are more associated with pleasant words")
