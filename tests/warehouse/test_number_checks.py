"""The config schema's number check (``Number``): every study number and CLI option goes through it.

The oracle is the range written out by hand: a value fits when it is a finite number of the right
kind with ``minimum <= value`` (``<`` when ``above``) and ``value <= maximum`` (``<`` when
``below``). Hypothesis draws the bounds, the flags and the value, the bounds themselves included.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biaswh.warehouse.settings.config_schema import TIMEOUT_SECONDS, Number

small = st.integers(-5, 5)


def fits_by_hand(value, *, integer, minimum, maximum, above, below) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float) or (integer and not isinstance(value, int)):
        return False
    if not math.isfinite(value):
        return False
    low_ok = minimum is None or (value > minimum if above else value >= minimum)
    high_ok = maximum is None or (value < maximum if below else value <= maximum)
    return low_ok and high_ok


@settings(max_examples=300, deadline=None)
@given(
    integer=st.booleans(),
    minimum=st.none() | small,
    maximum=st.none() | small,
    above=st.booleans(),
    below=st.booleans(),
    value=small | st.floats(-6, 6) | st.sampled_from([math.nan, math.inf, -math.inf, True, False, "1", None, 2.0]),
)
def test_a_value_fits_exactly_when_it_lies_in_the_range(integer, minimum, maximum, above, below, value):
    shape = Number(integer=integer, minimum=minimum, maximum=maximum, above=above, below=below)
    problem = shape.problem(value)
    expected = fits_by_hand(value, integer=integer, minimum=minimum, maximum=maximum, above=above, below=below)
    assert (problem is None) == expected, (shape, value, problem)
    if problem is not None:
        assert problem.startswith(f"must be {shape.describe()}") and problem.endswith(f"got {value!r}")


@pytest.mark.parametrize(
    ("shape", "words"),
    [
        (Number(), "a number"),
        (Number(integer=True), "an integer"),
        (Number(integer=True, minimum=1), "an integer >= 1"),
        (Number(minimum=0, above=True), "a number > 0"),
        (Number(maximum=2.5), "a number <= 2.5"),
        (Number(maximum=1, below=True), "a number < 1"),
        (Number(minimum=0, maximum=1), "a number in [0, 1]"),
        (Number(minimum=0, maximum=1, above=True, below=True), "a number in (0, 1)"),
        (Number(minimum=0.5, maximum=86_400, above=True), "a number in (0.5, 86400]"),
        (Number(minimum=-1, maximum=0.25, below=True), "a number in [-1, 0.25)"),
    ],
)
def test_the_range_is_described_as_a_message_states_it(shape, words):
    assert shape.describe() == words


def test_nan_and_the_infinities_are_named_in_the_message():
    for value in (math.nan, math.inf, -math.inf):
        assert TIMEOUT_SECONDS.problem(value) == f"must be a number in (0, 86400] (not NaN or infinite), got {value!r}"
