import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar as statsmodels_mcnemar

from biaswh.stats.paired.mcnemar import mcnemar


@pytest.mark.parametrize(
    ("only_a", "only_b", "both", "neither"),
    [(9, 3, 150, 38), (1, 5, 180, 14), (20, 20, 100, 60), (0, 7, 190, 3), (40, 12, 100, 48)],
)
def test_exact_and_chi2_match_statsmodels(only_a, only_b, both, neither):
    table = np.array([[both, only_a], [only_b, neither]])
    n = int(table.sum())
    exact = mcnemar(only_a, only_b, n_pairs=n, variant="exact")
    chi2 = mcnemar(only_a, only_b, n_pairs=n, variant="chi2-cc")
    assert exact.p_value == pytest.approx(statsmodels_mcnemar(table, exact=True).pvalue, abs=1e-12)
    reference = statsmodels_mcnemar(table, exact=False, correction=True)
    assert chi2.p_value == pytest.approx(reference.pvalue, abs=1e-12)
    assert chi2.statistic == pytest.approx(reference.statistic, abs=1e-12)
    assert exact.n == only_a + only_b
    assert exact.effect_size == pytest.approx((only_a - only_b) / n)
    assert exact.ci_low < exact.effect_size < exact.ci_high


def test_mid_p_is_exact_p_minus_the_observed_point_probability():
    result = mcnemar(3, 9, n_pairs=200, variant="mid-p")
    expected = 2 * (stats.binom.cdf(3, 12, 0.5) - 0.5 * stats.binom.pmf(3, 12, 0.5))
    assert result.p_value == pytest.approx(expected, abs=1e-15)
    assert result.p_value < mcnemar(3, 9, n_pairs=200, variant="exact").p_value


@pytest.mark.parametrize("variant", ["exact", "mid-p", "chi2-cc"])
def test_no_discordant_pairs_gives_p_one_not_nan(variant):
    result = mcnemar(0, 0, n_pairs=200, variant=variant)
    assert result.p_value == 1.0 and result.effect_size == 0.0 and "no discordant" in result.note


def test_impossible_counts_are_refused():
    with pytest.raises(ValueError):
        mcnemar(150, 60, n_pairs=200)


@pytest.mark.parametrize(
    ("only_a", "only_b", "n_pairs", "confidence"),
    [(12, 4, 40, 0.95), (3, 9, 25, 0.9), (9, 0, 10, 0.95), (0, 9, 10, 0.8), (1, 0, 1, 0.95), (7, 7, 30, 0.99)],
)
def test_the_effect_is_the_recall_difference_with_the_wald_interval_for_paired_proportions(
    only_a, only_b, n_pairs, confidence
):
    # Var(p_a - p_b) for paired proportions: (p_a + p_b - (p_a - p_b)^2) / n, p_a = only_a / n.
    p_a, p_b = only_a / n_pairs, only_b / n_pairs
    half = stats.norm.ppf(1 - (1 - confidence) / 2) * np.sqrt((p_a + p_b - (p_a - p_b) ** 2) / n_pairs)
    result = mcnemar(only_a, only_b, n_pairs=n_pairs, confidence=confidence)
    assert result.effect_size == pytest.approx(p_a - p_b)
    assert result.ci_low == pytest.approx(max(-1.0, p_a - p_b - half))
    assert result.ci_high == pytest.approx(min(1.0, p_a - p_b + half))
    assert (result.test, result.variant, result.n, result.confidence) == (
        "mcnemar",
        "exact binomial on discordant pairs",
        only_a + only_b,
        confidence,
    )
    assert result.effect_name == "recall difference (A - B)" and result.note == ""


def test_the_default_interval_is_95_percent_and_all_pairs_may_be_discordant():
    result = mcnemar(30, 10, n_pairs=40)
    assert result.confidence == 0.95 and result.ci_low < 0.5 < result.ci_high < 1.0
    assert mcnemar(0, 0, n_pairs=0).note == "no discordant pairs: no evidence either way"
    with pytest.raises(ValueError, match="^discordant counts must be non-negative and at most n_pairs$"):
        mcnemar(30, 11, n_pairs=40)
