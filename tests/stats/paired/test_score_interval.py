"""Newcombe's hybrid score interval for paired proportions against published worked examples."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from biaswh.stats.paired.bootstrap import paired_recall_difference
from biaswh.stats.paired.mcnemar import mcnemar
from biaswh.stats.paired.score_interval import _phi, _wilson, paired_difference_interval


@pytest.mark.parametrize(
    ("table", "low", "high"),
    [
        # Newcombe (1998), Statistics in Medicine 17:2635-2650, Table II, method 10 (e, f, g, h)
        ((36, 12, 2, 0), 0.0569, 0.3404),
        ((18, 12, 2, 18), 0.0562, 0.3290),
        ((53, 0, 0, 1), -0.0729, 0.0729),
        ((0, 30, 0, 0), 0.8395, 1.0),
        # Fagerland, Lydersen & Laake (2017), Statistical Analysis of Contingency Tables, ch. 8: Cavo et al. 2012
        ((59, 6, 16, 80), -0.1186, -0.0046),
    ],
)
def test_the_published_worked_examples(table, low, high):
    both, only_a, only_b, neither = table
    result = paired_difference_interval(both, only_a, only_b, neither)
    assert result.difference == pytest.approx((only_a - only_b) / sum(table))
    assert (round(result.ci_low, 4), round(result.ci_high, 4)) == (low, high)
    assert result.n_pairs == sum(table) and result.n_discordant == only_a + only_b


@pytest.mark.parametrize(("successes", "trials"), [(0, 10), (3, 42), (7, 23), (42, 42), (150, 200)])
def test_the_single_rate_limits_are_statsmodels_wilson(successes, trials):
    z = 1.959963984540054
    assert _wilson(successes, trials, z) == pytest.approx(
        proportion_confint(successes, trials, alpha=0.05, method="wilson"), abs=1e-12
    )


def test_three_discordant_pairs_of_42_do_not_exclude_no_difference():
    # the dialect case of the issue: the percentile bootstrap gave [0, 16.7] points beside exact p 0.25
    hits_a = np.array([1] * 42)
    hits_b = np.array([0, 0, 0] + [1] * 39)
    bootstrap = paired_recall_difference(hits_a, hits_b, seed=7)
    assert bootstrap.ci_low == 0.0
    score = paired_difference_interval(39, 3, 0, 0)
    exact = mcnemar(3, 0, n_pairs=42, variant="exact")
    assert exact.p_value == pytest.approx(0.25)
    assert score.ci_low < 0 < score.ci_high
    assert (round(100 * score.ci_low, 2), round(100 * score.ci_high, 2)) == (-2.46, 19.01)


@pytest.mark.parametrize("n_pairs", [10, 20, 42, 100, 200])
def test_up_to_three_discordant_pairs_never_exclude_zero(n_pairs):
    # the exact test cannot reject with 3 or fewer discordant pairs (p >= 0.25); neither may the interval
    for only_a in range(4):
        for only_b in range(4 - only_a):
            for both in range(0, n_pairs - only_a - only_b + 1, 3):
                result = paired_difference_interval(both, only_a, only_b, n_pairs - only_a - only_b - both)
                assert result.ci_low <= 0 <= result.ci_high, (n_pairs, both, only_a, only_b)


def test_the_interval_holds_its_estimate_and_narrows_with_confidence():
    wide = paired_difference_interval(100, 9, 3, 88, confidence=0.99)
    narrow = paired_difference_interval(100, 9, 3, 88, confidence=0.90)
    assert wide.ci_low < narrow.ci_low < narrow.difference < narrow.ci_high < wide.ci_high


@pytest.mark.parametrize(("table", "confidence"), [((-1, 0, 0, 1), 0.95), ((0, 0, 0, 0), 0.95), ((1, 1, 1, 1), 1.0)])
def test_impossible_input_is_refused(table, confidence):
    with pytest.raises(ValueError):
        paired_difference_interval(*table, confidence=confidence)


def test_the_limits_stay_inside_their_range_where_rounding_would_step_over():
    # computed without the clamps, these limits come out one float beyond 1 (and -1)
    assert _wilson(20, 20, float(stats.norm.ppf(0.9)))[1] == 1.0
    assert paired_difference_interval(0, 13, 0, 0, confidence=0.99).ci_high == 1.0
    assert paired_difference_interval(0, 0, 13, 0, confidence=0.99).ci_low == -1.0


@pytest.mark.parametrize(
    ("table", "cross"),
    [
        ((3, 1, 1, 3), 8 - 4),  # AD - BC above n / 2: shrunk by n / 2
        ((2, 5, 0, 2), 0),  # 4, between n / 3 and n / 2 (n = 9): 0
        ((1, 1, 1, 1), 0),  # 0: stays 0
        ((1, 2, 3, 1), 1 - 6),  # negative: kept as it is
    ],
)
def test_newcombes_phi_shrinks_a_positive_cross_product_by_half_the_pairs(table, cross):
    both, only_a, only_b, neither = table
    margins = (both + only_a) * (only_b + neither) * (both + only_b) * (only_a + neither)
    assert _phi(*table) == pytest.approx(cross / math.sqrt(margins), abs=1e-15)


@pytest.mark.parametrize(
    ("table", "confidence", "message"),
    [
        ((0, -1, 0, 3), 0.95, "paired counts must be non-negative"),
        ((0, 0, 0, 0), 0.95, "no pairs to compare"),
        ((1, 1, 1, 1), 0.0, "confidence must be between 0 and 1"),
        ((1, 1, 1, 1), 1.0, "confidence must be between 0 and 1"),
    ],
)
def test_impossible_input_is_refused_by_name(table, confidence, message):
    with pytest.raises(ValueError, match=f"^{message}$"):
        paired_difference_interval(*table, confidence=confidence)


def test_the_interval_keeps_its_level():
    result = paired_difference_interval(100, 9, 3, 88, confidence=0.9)
    assert result.confidence == 0.9 and result.method == "Newcombe hybrid score (method 10, 1998)"
