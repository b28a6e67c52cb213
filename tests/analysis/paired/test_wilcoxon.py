import numpy as np
import pytest
from scipy import stats

from analysis.paired.wilcoxon import rank_biserial, wilcoxon_rank_of_gold

RANKS_A = [1, 3, None, 7, 2, None, 5, 1, 10, 4, 1, 2]
RANKS_B = [1, 1, 4, None, 2, None, 2, 3, 1, 4, 1, 8]


def test_recommended_policy_keeps_every_pair_and_uses_pratt():
    result = wilcoxon_rank_of_gold(RANKS_A, RANKS_B, depth=100, seed=1)
    a = np.array([101 if r is None else r for r in RANKS_A], float)
    b = np.array([101 if r is None else r for r in RANKS_B], float)
    expected = stats.wilcoxon(a - b, zero_method="pratt")
    assert result.n == 12
    assert result.p_value == pytest.approx(expected.pvalue) and result.statistic == pytest.approx(expected.statistic)
    assert "Pratt" in result.variant


def test_original_policy_drops_misses_and_zero_differences():
    result = wilcoxon_rank_of_gold(RANKS_A, RANKS_B, depth=100, policy="original", seed=1)
    kept = [a - b for a, b in zip(RANKS_A, RANKS_B) if a is not None and b is not None and a != b]
    assert result.n == len(kept) == 5
    assert result.p_value == pytest.approx(stats.wilcoxon(kept).pvalue)


def test_rank_biserial_by_hand():
    # |d| ranks: 1 -> 1, 2 -> 2.5, -2 -> 2.5, 4 -> 4 ; W+ = 7.5, W- = 2.5 -> r = 5 / 10
    assert rank_biserial(np.array([1, 2, -2, 4, 0])) == pytest.approx(0.5)


def test_identical_ranks_give_p_one_and_zero_effect():
    result = wilcoxon_rank_of_gold([1, 2, None], [1, 2, None], depth=10, seed=3)
    assert result.p_value == 1.0 and result.effect_size == 0.0 and result.ci_low == result.ci_high == 0.0


def test_interval_is_seeded_and_brackets_the_effect():
    first = wilcoxon_rank_of_gold(RANKS_A, RANKS_B, depth=100, seed=7)
    again = wilcoxon_rank_of_gold(RANKS_A, RANKS_B, depth=100, seed=7)
    assert (first.ci_low, first.ci_high) == (again.ci_low, again.ci_high)
    assert first.ci_low <= first.effect_size <= first.ci_high
