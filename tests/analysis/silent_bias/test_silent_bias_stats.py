"""Wilson intervals and the exact McNemar test against statsmodels and scipy."""

from __future__ import annotations

import math

import pytest
from scipy.stats import binomtest
from statsmodels.stats.proportion import proportion_confint

from analysis.silent_bias.rate_statistics import mcnemar_exact, wilson_interval


@pytest.mark.parametrize("successes,trials", [(0, 7), (1, 7), (3, 11), (12, 12), (5, 58)])
def test_wilson_matches_statsmodels(successes, trials):
    result = wilson_interval(successes, trials, confidence=0.9)
    low, high = proportion_confint(successes, trials, alpha=0.1, method="wilson")
    assert result.rate == pytest.approx(successes / trials)
    assert (result.ci_low, result.ci_high) == pytest.approx((low, high))
    assert result.ci_low <= result.rate <= result.ci_high


def test_rate_is_undefined_not_zero_without_trials():
    result = wilson_interval(0, 0)
    assert (result.rate, result.ci_low, result.ci_high) == (None, None, None)
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


def test_mcnemar_exact_p_value_is_the_binomial_test_on_discordant_pairs():
    result = mcnemar_exact(n_both=3, n_reference_only=7, n_counterpart_only=1, n_neither=9, confidence=0.95)
    assert result.p_value == pytest.approx(binomtest(7, 8, 0.5).pvalue)
    assert result.n_pairs == 20 and result.flip_rate == pytest.approx(8 / 20)
    low, high = proportion_confint(8, 20, alpha=0.05, method="wilson")
    assert (result.flip_rate_ci_low, result.flip_rate_ci_high) == pytest.approx((low, high))
    assert result.effect_size == pytest.approx(7.0)
    p_low, p_high = proportion_confint(7, 8, alpha=0.05, method="beta")
    assert result.effect_ci_low == pytest.approx(p_low / (1 - p_low))
    assert result.effect_ci_high == pytest.approx(p_high / (1 - p_high))


def test_mcnemar_without_discordant_pairs_has_no_effect_size():
    result = mcnemar_exact(n_both=2, n_reference_only=0, n_counterpart_only=0, n_neither=5)
    assert result.p_value == 1.0 and result.effect_size is None and result.flip_rate == 0.0


def test_mcnemar_one_sided_flips_give_an_infinite_odds_ratio():
    result = mcnemar_exact(n_both=0, n_reference_only=3, n_counterpart_only=0, n_neither=1)
    assert math.isinf(result.effect_size) and math.isinf(result.effect_ci_high)
    assert result.p_value == pytest.approx(binomtest(3, 3, 0.5).pvalue)
