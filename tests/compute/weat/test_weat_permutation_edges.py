"""The WEAT permutation test's edges: whole results, the switch to drawing, ties, tolerance and refusals.

The exact p is checked against scipy's exact enumeration where scipy's statistic and ours count
the same partitions; the tolerance's edges against the rule the module documents (100 eps of the
sums' magnitude), on scores whose sums are exact in binary.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from biaswh.compute.weat.permutation import PermutationTestResult, _random_count, weat_permutation_test
from tests.compute.weat.test_weat_permutation import _scipy

EPS = np.finfo(np.float64).eps


def _scipy_exact_p(s_x, s_y) -> float:
    return _scipy(s_x, s_y, np.inf).pvalue


def test_the_exact_result_in_full_with_one_word_in_either_set():
    s_x, s_y = np.array([0.4]), np.array([0.9, -0.2, 0.1])
    assert weat_permutation_test(s_x, s_y, seed=1) == PermutationTestResult(
        test_statistic=float(0.4 - (0.9 - 0.2 + 0.1)),
        p_value=0.5,
        method="exact",
        n_permutations=4,
        n_partitions_total=4,
        n_x=1,
        n_y=3,
        alternative="greater",
    )
    one_y = weat_permutation_test(s_y, s_x, seed=1)
    assert (one_y.n_x, one_y.n_y, one_y.n_partitions_total) == (3, 1, 4)
    # Leaving out 0.4 (the observed), 0.9, -0.2 or 0.1: sums 0.8, 0.3, 1.4, 1.1 (scipy needs two words a set).
    assert one_y.p_value == 0.75


def test_an_empty_target_set_is_refused_word_for_word():
    for s_x, s_y in (([], [1.0, 2.0]), ([1.0, 2.0], []), ([], [])):
        with pytest.raises(ValueError) as refused:
            weat_permutation_test(np.array(s_x), np.array(s_y), seed=1)
        assert str(refused.value) == "both target sets need at least one word"


def test_partitions_tied_exactly_with_the_observed_count_as_extreme_like_scipy():
    # The observed sum and statistic are both 0, so the tolerance is 0: only >= counts the ties.
    s_x, s_y = np.array([1.0, -1.0]), np.array([2.0, -2.0])
    result = weat_permutation_test(s_x, s_y, seed=1)
    assert result.p_value == pytest.approx(_scipy_exact_p(s_x, s_y)) == pytest.approx(4 / 6)
    scores = np.concatenate([s_x, s_y])
    # Drawing all six partitions counts the same four.
    assert _random_count(scores, 2, 0.0, 0.0, n_permutations=6, rng=np.random.default_rng(1)) == 4


@pytest.mark.parametrize(
    "gap, counted",
    [(2 * EPS, True), (99.5 * EPS, True), (100.5 * EPS, False)],
)
def test_the_tolerance_is_100_eps_of_the_sums_magnitude(gap, counted):
    # X = {1}, Y = {1 - gap}: the other partition's sum falls short of the observed 1 by exactly
    # `gap`, against a tolerance of 100 eps * (|1| + |gap|), which rounds 1 - tolerance to 1 - 100 eps.
    result = weat_permutation_test(np.array([1.0]), np.array([1.0 - gap]), seed=1)
    assert result.p_value == (1.0 if counted else 0.5)


def test_a_hundred_and_thirty_words_are_indexed_beyond_what_a_byte_holds():
    # C(130, 1) = 130 partitions, enumerated with word indices up to 129.
    s_y = np.arange(129) / 10  # 0.0 ... 12.8
    result = weat_permutation_test(np.array([5.05]), s_y, seed=1)
    assert result.method == "exact" and result.n_partitions_total == 130
    assert result.p_value == (1 + np.count_nonzero(s_y > 5.05)) / 130 == 79 / 130


def test_single_precision_scores_are_summed_in_double():
    tiny = np.float32(2.0**-24)
    s_x = np.array([1.0, tiny, tiny], dtype=np.float32)  # float32 sums it to 1.0
    s_y = np.array([0.5, tiny, tiny], dtype=np.float32)
    result = weat_permutation_test(s_x, s_y, seed=1)
    double_x, double_y = s_x.astype(np.float64).sum(), s_y.astype(np.float64).sum()
    assert result.test_statistic == float(double_x - double_y) == 0.5
    y_first = weat_permutation_test(s_y, s_x, seed=1)
    assert y_first.test_statistic == -0.5


def test_the_test_is_exact_up_to_and_including_either_limit():
    rng = np.random.default_rng(8)
    s_x, s_y = rng.normal(size=5), rng.normal(size=5)  # C(10, 5) = 252
    at_exact_limit = weat_permutation_test(s_x, s_y, seed=1, exact_limit=252, n_permutations=10)
    at_draws = weat_permutation_test(s_x, s_y, seed=1, exact_limit=0, n_permutations=252)
    below_both = weat_permutation_test(s_x, s_y, seed=1, exact_limit=251, n_permutations=251)
    assert at_exact_limit == at_draws
    assert at_exact_limit.method == "exact" and at_exact_limit.p_value == pytest.approx(_scipy_exact_p(s_x, s_y))
    assert below_both.method == "randomised" and below_both.n_permutations == 251


@pytest.mark.parametrize("n_permutations", [1, 100, 923])
def test_the_randomised_result_in_full_when_every_partition_is_as_extreme(n_permutations):
    # X holds the six smallest scores: every partition's sum is at least X's, so every draw counts
    # and p = (B + 1) / (B + 1) = 1 whichever partitions are drawn.
    s_x, s_y = np.arange(6.0), np.arange(6.0, 12.0)
    result = weat_permutation_test(s_x, s_y, seed=3, exact_limit=0, n_permutations=n_permutations)
    assert result == PermutationTestResult(
        test_statistic=-36.0,
        p_value=1.0,
        method="randomised",
        n_permutations=n_permutations,
        n_partitions_total=math.comb(12, 6),
        n_x=6,
        n_y=6,
        alternative="greater",
    )
