"""Wilson's score interval against statsmodels and a worked example."""

from __future__ import annotations

import pytest
from statsmodels.stats.proportion import proportion_confint

from biaswh.stats.wilson import RateInterval, wilson_interval


@pytest.mark.parametrize("successes,trials", [(0, 7), (1, 7), (3, 11), (12, 12), (5, 58)])
def test_wilson_matches_statsmodels(successes, trials):
    result = wilson_interval(successes, trials, confidence=0.9)
    low, high = proportion_confint(successes, trials, alpha=0.1, method="wilson")
    assert result.rate == pytest.approx(successes / trials)
    assert (result.ci_low, result.ci_high) == pytest.approx((low, high))
    assert result.ci_low <= result.rate <= result.ci_high
    assert (result.successes, result.trials, result.confidence, result.method) == (successes, trials, 0.9, "wilson")


def test_wilson_reproduces_newcombes_worked_example():
    # Newcombe (1998, Statistics in Medicine 17, 857-872), Table II: 81/263 gives [0.2553, 0.3662].
    result = wilson_interval(81, 263)
    assert (result.ci_low, result.ci_high) == pytest.approx((0.2553, 0.3662), abs=5e-5)


def test_the_bounds_hold_the_rate_exactly_at_zero_and_all_successes():
    none, every = wilson_interval(0, 5), wilson_interval(5, 5)
    assert none.ci_low == 0.0 and none.rate == 0.0
    assert every.ci_high == 1.0 and every.rate == 1.0


def test_rate_is_undefined_not_zero_without_trials():
    result = wilson_interval(0, 0)
    assert (result.rate, result.ci_low, result.ci_high) == (None, None, None)
    with pytest.raises(ValueError, match="0 <= successes <= trials"):
        wilson_interval(3, 2)
    with pytest.raises(ValueError):
        wilson_interval(-1, 2)


def test_a_rate_without_trials_keeps_its_counts_and_level():
    assert wilson_interval(0, 0, confidence=0.9) == RateInterval(0, 0, None, None, None, 0.9, "wilson")
