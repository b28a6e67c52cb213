import numpy as np
import pytest
from scipy import stats

from biaswh.stats.paired.wilcoxon import rank_biserial, rank_biserial_rows, wilcoxon_rank_of_gold

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


@pytest.mark.parametrize("dtype", [int, float])
def test_rank_biserial_of_many_rows_at_once_equals_one_row_at_a_time_bit_for_bit(dtype):
    # Ties, zeros, all-zero rows and one-sided rows, as bootstrap resamples of gold-rank differences give them.
    rows = np.random.default_rng(5).integers(-4, 5, size=(400, 17)).astype(dtype)
    rows[:3] = 0
    rows[3] = np.abs(rows[3]) + 1
    assert rank_biserial_rows(rows).tolist() == [rank_biserial(row) for row in rows]


def test_identical_ranks_give_p_one_and_zero_effect():
    result = wilcoxon_rank_of_gold([1, 2, None], [1, 2, None], depth=10, seed=3)
    assert result.p_value == 1.0 and result.effect_size == 0.0 and result.ci_low == result.ci_high == 0.0


def _rank_biserial_from_scipy(differences: np.ndarray) -> float:
    """r = 2 W+ / T - 1, with W+ from scipy's one-sided signed-rank statistic and T = n(n+1)/2."""
    nonzero = differences[differences != 0]
    if nonzero.size == 0:
        return 0.0
    w_plus = stats.wilcoxon(nonzero, alternative="greater", method="asymptotic").statistic
    return 2 * w_plus / (nonzero.size * (nonzero.size + 1) / 2) - 1


@pytest.mark.parametrize("policy", ["miss_as_depth_plus_one", "original"])
def test_interval_equals_scipy_bootstrap_of_an_independent_rank_biserial(policy):
    result = wilcoxon_rank_of_gold(RANKS_A, RANKS_B, depth=100, policy=policy, seed=7)
    if policy == "original":
        differences = np.array(
            [a - b for a, b in zip(RANKS_A, RANKS_B) if a is not None and b is not None and a != b], float
        )
    else:
        differences = np.array([101 if r is None else r for r in RANKS_A], float) - np.array(
            [101 if r is None else r for r in RANKS_B], float
        )
    # Same seed, same resampling scheme (pairs with replacement), so the same resamples.
    reference = stats.bootstrap(
        (differences,),
        _rank_biserial_from_scipy,
        n_resamples=2000,
        method="percentile",
        vectorized=False,
        rng=np.random.default_rng(7),
    )
    assert result.effect_size == pytest.approx(_rank_biserial_from_scipy(differences))
    assert result.ci_low == pytest.approx(reference.confidence_interval.low, abs=1e-12)
    assert result.ci_high == pytest.approx(reference.confidence_interval.high, abs=1e-12)
    assert result.ci_low < result.effect_size < result.ci_high
    again = wilcoxon_rank_of_gold(RANKS_A, RANKS_B, depth=100, policy=policy, seed=7)
    assert (again.ci_low, again.ci_high) == (result.ci_low, result.ci_high)
