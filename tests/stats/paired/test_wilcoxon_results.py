"""The gold-rank Wilcoxon test's whole result under each miss policy, its edges and its refusals.

References: scipy's signed-rank test on the differences each policy keeps, and the rank-biserial
interval recomputed one resample at a time from the seeded draws scipy's bootstrap also makes
(one ``integers(0, n, (R, n))`` call).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from biaswh.stats.paired.result import TestResult
from biaswh.stats.paired.wilcoxon import rank_biserial, rank_biserial_rows, wilcoxon_rank_of_gold

RANKS_A = [1, 3, None, 7, 2, None, 5, 1, 10, 4, 1, 2, 6, 9]
RANKS_B = [1, 1, 4, None, 2, None, 2, 3, 1, 4, 1, 8, 2, 3]


def _interval(differences: np.ndarray, seed: int, n_resamples: int, confidence: float) -> tuple[float, float]:
    draws = np.random.default_rng(seed).integers(0, differences.size, size=(n_resamples, differences.size))
    values = [rank_biserial(differences[row]) for row in draws]
    tail = (1 - confidence) / 2
    return float(np.quantile(values, tail)), float(np.quantile(values, 1 - tail))


def _filled(ranks: list, miss: int) -> np.ndarray:
    return np.array([miss if r is None else r for r in ranks], float)


def test_the_recommended_policy_counts_a_miss_as_depth_plus_one_with_pratts_zeros():
    result = wilcoxon_rank_of_gold(RANKS_A, RANKS_B, depth=10, seed=4, n_resamples=2500, confidence=0.9)
    differences = _filled(RANKS_A, 11) - _filled(RANKS_B, 11)
    scipy_result = stats.wilcoxon(differences, zero_method="pratt")
    low, high = _interval(differences, 4, 2500, 0.9)
    assert result == TestResult(
        test="wilcoxon",
        variant="signed-rank, miss = depth + 1, Pratt zeros",
        n=14,
        statistic=float(scipy_result.statistic),
        p_value=float(scipy_result.pvalue),
        effect_name="rank-biserial r (A worse > 0)",
        effect_size=rank_biserial(differences),
        ci_low=low,
        ci_high=high,
        confidence=0.9,
    )


def test_the_original_policy_drops_misses_and_ties_and_says_so():
    result = wilcoxon_rank_of_gold(RANKS_A, RANKS_B, depth=10, policy="original", seed=4, confidence=0.8)
    kept = np.array([a - b for a, b in zip(RANKS_A, RANKS_B) if None not in (a, b) and a != b], float)
    scipy_result = stats.wilcoxon(kept)
    low, high = _interval(kept, 4, 2000, 0.8)
    assert result == TestResult(
        test="wilcoxon",
        variant="signed-rank, misses and zero differences dropped (original)",
        n=7,
        statistic=float(scipy_result.statistic),
        p_value=float(scipy_result.pvalue),
        effect_name="rank-biserial r (A worse > 0)",
        effect_size=rank_biserial(kept),
        ci_low=low,
        ci_high=high,
        confidence=0.8,
    )


@pytest.mark.parametrize(
    ("policy", "ranks_a", "ranks_b", "n", "variant"),
    [
        ("miss_as_depth_plus_one", [1, None, 3], [1, None, 3], 3, "signed-rank, miss = depth + 1, Pratt zeros"),
        (
            "original",
            [1, None, 3, 4],
            [1, 2, 3, None],
            0,
            "signed-rank, misses and zero differences dropped (original)",
        ),
    ],
)
def test_no_rank_difference_is_no_evidence_either_way(policy, ranks_a, ranks_b, n, variant):
    # The first: every pair tied (a miss on both sides too); the second: nothing left to compare.
    result = wilcoxon_rank_of_gold(ranks_a, ranks_b, depth=10, policy=policy, seed=1, confidence=0.9)
    assert math.isnan(result.statistic)
    assert result == TestResult(
        test="wilcoxon",
        variant=variant,
        n=n,
        statistic=result.statistic,
        p_value=1.0,
        effect_name="rank-biserial r (A worse > 0)",
        effect_size=0.0,
        ci_low=0.0,
        ci_high=0.0,
        confidence=0.9,
        note="no non-zero rank differences: no evidence either way",
    )


def test_thousands_of_pairs_are_resampled_in_blocks_as_one_draw_would_be():
    # 2,200 pairs x 2,000 resamples is more than one block of draws (RESAMPLE_BLOCK_CELLS).
    rng = np.random.default_rng(30)
    ranks_a, ranks_b = rng.integers(1, 12, 2200).tolist(), rng.integers(1, 11, 2200).tolist()
    result = wilcoxon_rank_of_gold(ranks_a, ranks_b, depth=20, seed=6)
    differences = np.array(ranks_a, float) - np.array(ranks_b, float)
    assert (result.ci_low, result.ci_high) == _interval(differences, 6, 2000, 0.95)


def test_rank_lists_of_different_lengths_are_refused_by_name():
    with pytest.raises(ValueError, match="^ranks_a and ranks_b must have one entry per pair$"):
        wilcoxon_rank_of_gold([1, 2], [1, 2, 3], depth=10, seed=1)


def test_one_differing_pair_is_tested_and_its_r_is_plus_or_minus_one():
    result = wilcoxon_rank_of_gold([5], [2], depth=10, seed=1)
    scipy_result = stats.wilcoxon([3.0], zero_method="pratt")
    assert (result.n, result.p_value, result.statistic) == (
        1,
        float(scipy_result.pvalue),
        float(scipy_result.statistic),
    )
    assert (result.effect_size, result.ci_low, result.ci_high, result.note) == (1.0, 1.0, 1.0, "")


def test_the_rank_biserial_r_of_fractional_differences_equals_scipys():
    # Below 1 in size (averaged ranks, or any paired scores): positive ones must not count as negative.
    differences = np.array([0.5, -0.25, 2.0, -1.5, 0.75, 0.0])
    nonzero = differences[differences != 0]
    w_plus = stats.wilcoxon(nonzero, alternative="greater", method="asymptotic").statistic
    assert rank_biserial(differences) == pytest.approx(2 * w_plus / (nonzero.size * (nonzero.size + 1) / 2) - 1)


def test_rows_with_one_nonzero_difference_have_r_plus_or_minus_one():
    rows = np.array([[0, 0, 3, 0], [0, -2, 0, 0], [0, 0, 0, 0]], dtype=float)
    assert rank_biserial_rows(rows).tolist() == [1.0, -1.0, 0.0] == [rank_biserial(row) for row in rows]
