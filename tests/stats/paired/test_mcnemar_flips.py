"""The exact McNemar test with flip rate and conditional odds ratio, against statsmodels and scipy."""

from __future__ import annotations

import math

import pytest
from scipy.stats import binomtest
from statsmodels.stats.contingency_tables import mcnemar as statsmodels_mcnemar
from statsmodels.stats.proportion import proportion_confint

from biaswh.stats.paired.mcnemar_flips import McNemarResult, mcnemar_exact


def test_mcnemar_exact_p_value_is_the_binomial_test_on_discordant_pairs():
    result = mcnemar_exact(n_both=3, n_reference_only=7, n_counterpart_only=1, n_neither=9, confidence=0.95)
    assert result.p_value == pytest.approx(binomtest(7, 8, 0.5).pvalue)
    reference = statsmodels_mcnemar([[3, 7], [1, 9]], exact=True)
    assert (result.statistic, result.p_value) == pytest.approx((reference.statistic, reference.pvalue))
    assert result.n_pairs == 20 and result.flip_rate == pytest.approx(8 / 20)
    low, high = proportion_confint(8, 20, alpha=0.05, method="wilson")
    assert (result.flip_rate_ci_low, result.flip_rate_ci_high) == pytest.approx((low, high))
    assert result.effect_size == pytest.approx(7.0)
    p_low, p_high = proportion_confint(7, 8, alpha=0.05, method="beta")
    assert result.effect_ci_low == pytest.approx(p_low / (1 - p_low))
    assert result.effect_ci_high == pytest.approx(p_high / (1 - p_high))
    assert (result.n_both, result.n_reference_only, result.n_counterpart_only, result.n_neither) == (3, 7, 1, 9)


def test_mcnemar_without_discordant_pairs_has_no_effect_size():
    result = mcnemar_exact(n_both=2, n_reference_only=0, n_counterpart_only=0, n_neither=5)
    assert result.p_value == 1.0 and result.effect_size is None and result.flip_rate == 0.0
    assert result.statistic == 0.0


def test_mcnemar_one_sided_flips_give_an_infinite_odds_ratio():
    result = mcnemar_exact(n_both=0, n_reference_only=3, n_counterpart_only=0, n_neither=1)
    assert math.isinf(result.effect_size) and math.isinf(result.effect_ci_high)
    assert result.p_value == pytest.approx(binomtest(3, 3, 0.5).pvalue)


def test_mcnemar_without_pairs_has_no_flip_rate():
    result = mcnemar_exact(n_both=0, n_reference_only=0, n_counterpart_only=0, n_neither=0)
    assert (result.n_pairs, result.flip_rate, result.p_value) == (0, None, 1.0)


def test_the_whole_result_names_its_test_and_effect_and_keeps_its_level():
    result = mcnemar_exact(n_both=4, n_reference_only=2, n_counterpart_only=9, n_neither=5, confidence=0.9)
    flips = proportion_confint(11, 20, alpha=0.1, method="wilson")
    p_low, p_high = proportion_confint(2, 11, alpha=0.1, method="beta")
    assert result == McNemarResult(
        test="McNemar exact (two-sided binomial test on the discordant pairs)",
        n_pairs=20,
        n_both=4,
        n_reference_only=2,
        n_counterpart_only=9,
        n_neither=5,
        statistic=2.0,
        p_value=pytest.approx(binomtest(2, 11, 0.5).pvalue),
        flip_rate=11 / 20,
        flip_rate_ci_low=pytest.approx(flips[0]),
        flip_rate_ci_high=pytest.approx(flips[1]),
        effect_size_name="conditional odds ratio (reference-only / counterpart-only flips)",
        effect_size=pytest.approx(2 / 9),
        effect_ci_low=pytest.approx(p_low / (1 - p_low)),
        effect_ci_high=pytest.approx(p_high / (1 - p_high)),
        confidence=0.9,
    )
    default = mcnemar_exact(n_both=4, n_reference_only=2, n_counterpart_only=9, n_neither=5)
    assert default.confidence == 0.95
    assert default.flip_rate_ci_low == pytest.approx(proportion_confint(11, 20, alpha=0.05, method="wilson")[0])
    beta_low = proportion_confint(2, 11, alpha=0.05, method="beta")[0]
    assert default.effect_ci_low == pytest.approx(beta_low / (1 - beta_low))
