"""Exact p-values against brute-force enumeration of every outcome the null allows (Hypothesis).

The sign-flip test's two exact paths (meet-in-the-middle enumeration and the lattice recursion)
and McNemar's exact and mid-p binomial are checked on small random inputs against the plain
definition: under the null each nonzero paired difference takes either sign with probability
1/2, and each discordant pair falls to either system with probability 1/2.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biaswh.stats.paired.mcnemar import mcnemar
from biaswh.stats.paired.sign_flip import sign_flip_test

# Differences on the lattice of a metric at a cutoff k (steps of 1/k), zeros and ties included.
lattice_differences = st.integers(1, 10).flatmap(
    lambda k: st.lists(st.integers(-k, k).map(lambda step: step / k), min_size=1, max_size=10)
)


def share_at_least_as_extreme(differences: list[float]) -> float:
    """The share of all 2^n sign assignments whose |sum| is at least the observed |sum|."""
    values = np.array(differences)
    observed = abs(values.sum())
    signs = np.array(list(itertools.product((1, -1), repeat=len(values))))
    return float(np.mean(np.abs(signs @ values) >= observed - 1e-9))


@settings(max_examples=60, deadline=None)
@given(differences=lattice_differences)
def test_sign_flip_exact_enumeration_is_the_share_of_sign_assignments(differences):
    result = sign_flip_test(differences, seed=1)
    assert result.variant == "exact enumeration"
    assert result.p_value == pytest.approx(share_at_least_as_extreme(differences), abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(differences=lattice_differences.filter(lambda d: sum(x != 0 for x in d) > 1))
def test_sign_flip_exact_lattice_is_the_share_of_sign_assignments(differences):
    result = sign_flip_test(differences, seed=1, max_enumerated=1)  # too many to enumerate: the lattice
    assert result.variant == "exact lattice"
    assert result.p_value == pytest.approx(share_at_least_as_extreme(differences), abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(only_a=st.integers(0, 14), only_b=st.integers(0, 14))
def test_mcnemar_exact_and_mid_p_are_the_binomial_shares_of_discordant_splits(only_a, only_b):
    discordant = only_a + only_b
    smaller = min(only_a, only_b)
    # Each of the 2^n ways the discordant pairs fall to A or B, counted by how many fall to A.
    ways = [math.comb(discordant, k) / 2**discordant for k in range(discordant + 1)]
    as_extreme = sum(w for k, w in enumerate(ways) if min(k, discordant - k) <= smaller)
    exact = mcnemar(only_a, only_b, n_pairs=discordant + 5)
    if discordant == 0:
        assert exact.p_value == 1.0
        return
    assert exact.p_value == pytest.approx(as_extreme, abs=1e-12)
    # mid-p: twice the lower tail in which the observed split itself counts half.
    lower_tail = sum(ways[:smaller]) + ways[smaller] / 2
    mid = mcnemar(only_a, only_b, n_pairs=discordant + 5, variant="mid-p")
    assert mid.p_value == pytest.approx(min(1.0, 2 * lower_tail), abs=1e-12)
