"""The sign-flip test's whole result, the edges between its three methods, its ties and its refusals.

References: scipy's one-sample t-test, exact integer arithmetic on planted differences, the
documented Monte Carlo draws, and the test's own exact enumeration where a method must agree with it.
"""

from __future__ import annotations

import math
from dataclasses import replace
from decimal import Decimal

import numpy as np
import pytest
from scipy import stats

from biaswh.stats.paired.result import TestResult
from biaswh.stats.paired.sign_flip import sign_flip_test

H = 2.0**-31
# 1e-9 of this largest difference is exactly 2H: planted sums fall exactly on the tie tolerance.
M = 2e9 * H


def _close_to(drawn: float, exact: float, draws: int = 10_000) -> bool:
    return abs(drawn - exact) < 4 * math.sqrt(exact * (1 - exact) / draws) + 1e-4


def test_the_whole_result_names_the_test_its_method_and_leaves_the_interval_to_another():
    differences = [0.5, -0.25, 0.75, 1 / 3, 0.0]
    result = sign_flip_test(differences, seed=3)
    mean = float(np.mean(differences))
    signs = np.array(np.meshgrid(*[[1, -1]] * 4)).reshape(4, -1).T
    share = float(np.mean(np.abs(signs @ np.array(differences[:4])) >= abs(sum(differences)) - 1e-12))
    expected = TestResult(
        test="sign-flip randomization",
        variant="exact enumeration",
        n=5,
        statistic=mean,
        p_value=share,
        effect_name="mean difference (A - B)",
        effect_size=mean,
        ci_low=result.ci_low,
        ci_high=result.ci_high,
        n_nonzero=4,
        min_p=2 / 2**4,
        p_t_test=float(stats.ttest_1samp(differences, 0.0).pvalue),
    )
    assert math.isnan(result.ci_low) and math.isnan(result.ci_high)
    assert result == replace(expected, p_value=pytest.approx(share, abs=1e-12))


def test_differences_given_as_decimals_are_read_as_numbers():
    # DuckDB hands a DECIMAL column to Python as decimal.Decimal, which np.isfinite cannot read.
    values = ["0.5", "-0.25", "0.75", "0.2", "0"]
    assert sign_flip_test([Decimal(v) for v in values], seed=1) == sign_flip_test([float(v) for v in values], seed=1)


@pytest.mark.parametrize("differences", [[], [[0.1, 0.2], [0.3, 0.4]], [0.1, math.inf], [math.nan]])
def test_differences_that_are_empty_not_one_dimensional_or_not_finite_are_refused_by_name(differences):
    with pytest.raises(ValueError, match="^differences must be a non-empty 1-d array of finite numbers$"):
        sign_flip_test(differences, seed=1)


def test_fewer_than_ten_thousand_draws_are_refused_by_name():
    with pytest.raises(ValueError, match="^use at least 10,000 Monte Carlo draws$"):
        sign_flip_test([0.1, 0.2], seed=1, n_resamples=9_999)


def test_no_difference_gives_p_and_smallest_p_one():
    result = sign_flip_test(np.zeros(5), seed=1)
    assert (result.variant, result.p_value, result.min_p, result.n_nonzero) == ("exact enumeration", 1.0, 1.0, 0)


def test_a_difference_of_exactly_the_tie_tolerance_is_a_zero():
    assert sign_flip_test([1.0, 1e-9, -0.5], seed=1).n_nonzero == 2
    assert sign_flip_test([1.0, 1.1e-9, -0.5], seed=1).n_nonzero == 3


def test_two_differences_have_a_t_test_beside_them():
    assert sign_flip_test([0.1, 0.3], seed=1).p_t_test == pytest.approx(stats.ttest_1samp([0.1, 0.3], 0.0).pvalue)


@pytest.mark.parametrize(
    ("n_nonzero", "max_enumerated", "variant"),
    [
        (20, 2**20, "exact enumeration"),
        (21, 2**20, "exact lattice"),
        (5, 2**5, "exact enumeration"),
        (6, 2**5, "exact lattice"),
    ],
)
def test_enumeration_reaches_exactly_its_largest_number_of_assignments(n_nonzero, max_enumerated, variant):
    differences = np.r_[np.resize([0.25, -0.5, 0.75, 1.0], n_nonzero), 0.0]
    assert sign_flip_test(differences, seed=1, max_enumerated=max_enumerated).variant == variant


def _at_the_tolerance_or_beyond(signs: np.ndarray) -> int:
    # In units of H the planted sums are exact integers; a tie is within 2 units of the observed.
    units = np.array([2_000_000_000, 5, -4])
    return int(np.count_nonzero(np.abs(signs @ units) >= units.sum() - 2))


def test_a_sum_exactly_at_the_tie_tolerance_counts_as_extreme_on_both_sides():
    # M + 5H - 4H is observed; M - 5H + 4H and its mirror -(M - H) are 2H closer to zero: ties.
    differences = np.array([M, 5 * H, -4 * H])
    assert 1e-9 * M == 2 * H
    all_signs = np.array(np.meshgrid([1, -1], [1, -1], [1, -1])).reshape(3, -1).T
    assert _at_the_tolerance_or_beyond(all_signs) == 6  # of 8
    assert sign_flip_test(differences, seed=1).p_value == 0.75
    # The same by Monte Carlo: b + 1 over B + 1, b counted on the documented draws.
    drawn = sign_flip_test(differences, seed=8, max_enumerated=1)
    assert drawn.variant == "monte carlo B=10000, seed 8"
    signs = np.random.default_rng(8).integers(0, 2, size=(10_000, 3), dtype=np.int8) * 2 - 1
    assert drawn.p_value == (_at_the_tolerance_or_beyond(signs) + 1) / 10_001


@pytest.mark.parametrize("scale", [2.0**-30, 2.0**30])
@pytest.mark.parametrize(("n", "method"), [(12, "exact enumeration"), (30, "monte carlo")])
def test_the_p_value_does_not_depend_on_the_unit_of_the_differences(scale, n, method):
    differences = np.random.default_rng(n).normal(0.2, 1.0, n)
    unscaled, scaled = sign_flip_test(differences, seed=2), sign_flip_test(differences * scale, seed=2)
    assert unscaled.variant.startswith(method) and scaled.variant.startswith(method)
    assert (scaled.p_value, scaled.n_nonzero) == (unscaled.p_value, n) and 0.01 < scaled.p_value < 0.99


def test_five_hundred_differences_drawn_in_blocks_agree_with_the_exact_lattice():
    rng = np.random.default_rng(500)
    differences = rng.integers(-5, 6, 500) / 5 + 0.02
    exact = sign_flip_test(differences, seed=4)
    drawn = sign_flip_test(differences + 1e-7, seed=4)  # off the lattice: 10,000 draws of 500 signs
    assert (exact.variant, drawn.variant) == ("exact lattice", "monte carlo B=10000, seed 4")
    assert 0.05 < exact.p_value < 0.95 and _close_to(drawn.p_value, exact.p_value)


def test_metrics_above_one_are_on_the_lattice_within_their_float_error():
    # A DCG or a count: 10000.2 - 0.4 is 9999.8 give or take a float, an error far above 1e-9 / 9999.8.
    steps = np.random.default_rng(3).integers(1, 6, 12)
    differences = ((10_000 + steps / 5) - np.resize([0.4, 0.6, 0.2], 12)) * np.resize([1, -1, -1], 12)
    assert max(abs(abs(x) - round(abs(x) * 5) / 5) for x in differences) > 1e-12
    lattice = sign_flip_test(differences, seed=1, max_enumerated=1)
    enumerated = sign_flip_test(differences, seed=1)
    assert lattice.variant == "exact lattice" and lattice.p_value == pytest.approx(enumerated.p_value, abs=1e-12)


@pytest.mark.parametrize(("offset", "variant"), [(0.5e-9, "exact lattice"), (1.5e-9, "monte carlo")])
def test_a_difference_more_than_1e9_off_its_lattice_is_drawn(offset, variant):
    differences = np.resize([0.5, -0.25, 0.75, 0.5, 0.25], 25) + offset
    assert sign_flip_test(differences, seed=1).variant.startswith(variant)


def test_the_lattice_stops_at_fifty_million_cells():
    # Steps of 1/5040 summing to 5,000,000 over 10 differences: 50,000,000 cells, then one step more.
    at_limit = np.array([499_999, 500_001] + [500_000] * 8) / 5040
    beyond = np.array([499_999, 500_002] + [500_000] * 8) / 5040
    assert sign_flip_test(at_limit, seed=1, max_enumerated=1).variant == "exact lattice"
    assert sign_flip_test(at_limit, seed=1, max_enumerated=1).p_value == 2 / 2**10
    assert sign_flip_test(beyond, seed=1, max_enumerated=1).variant.startswith("monte carlo")


@pytest.mark.parametrize(
    "differences",
    [
        np.random.default_rng(1).integers(-3, 4, 22) * 2.0**-40,  # every difference below 1e-9
        np.r_[np.resize([0.1, -0.1, 0.2], 21), 5e-10],  # one, beside larger ones
    ],
)
def test_differences_below_the_lattices_tolerance_are_drawn_not_a_crash(differences):
    # Each would be a step of 0: a division by zero, or a shift by no step, before this was fixed.
    drawn = sign_flip_test(differences, seed=5, max_enumerated=1)
    exact = sign_flip_test(differences, seed=5, max_enumerated=2**22)
    assert drawn.variant.startswith("monte carlo") and exact.variant == "exact enumeration"
    assert drawn.n_nonzero == exact.n_nonzero == np.count_nonzero(differences)
    assert _close_to(drawn.p_value, exact.p_value)
