"""The one-sided WEAT permutation test: exact enumeration, or seeded random partitions without replacement.

H1: targets X are more associated with A (relative to B) than targets Y are. The null
distribution is that of s(Xi, Yi, A, B) over re-partitions of X ∪ Y into sets of sizes |X|
and |Y|. Since s(Xi, Yi) = 2 * sum_{Xi} s - sum_{X ∪ Y} s, it suffices to compare the sums
over Xi. Ties count as "at least as extreme", with scipy's relative tolerance of 100 eps.

Compared with WEFE (1.0): WEFE draws each "permutation" with ``np.random.choice`` with
replacement (a word can appear twice, and a draw need not be a partition of X ∪ Y), unseeded,
and counts only strictly greater statistics; its p-values therefore differ from these.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

EXACT_LIMIT = 1_000_000
RANDOM_PERMUTATIONS = 100_000
_CHUNK = 1 << 16


@dataclass(frozen=True)
class PermutationTestResult:
    """A one-sided permutation p-value and how it was obtained."""

    test_statistic: float
    p_value: float
    method: Literal["exact", "randomised"]
    n_permutations: int  # partitions enumerated (exact) or distinct random partitions drawn
    n_partitions_total: int  # C(|X| + |Y|, |X|)
    n_x: int
    n_y: int
    alternative: str = "greater"


def _tolerance(observed: float) -> float:
    return abs(observed) * np.finfo(np.float64).eps * 100


def _exact_count(scores: np.ndarray, n_x: int, observed_sum: float, tolerance: float) -> int:
    """How many of all C(n, n_x) subsets Xi have sum_{Xi} s >= observed (chunked, vectorised)."""
    combinations = itertools.combinations(range(len(scores)), n_x)
    index_type = np.int8 if len(scores) < 128 else np.int32
    count = 0
    while True:
        flat = np.fromiter(itertools.chain.from_iterable(itertools.islice(combinations, _CHUNK)), dtype=index_type)
        if flat.size == 0:
            return count
        sums = scores[flat.reshape(-1, n_x)].sum(axis=1)
        count += int(np.count_nonzero(sums >= observed_sum - tolerance))


def _random_memberships(rng: np.random.Generator, n: int, n_x: int, size: int) -> np.ndarray:
    """``size`` random subsets of size n_x as boolean membership rows (each a uniform random partition)."""
    order = rng.permuted(np.tile(np.arange(n), (size, 1)), axis=1)[:, :n_x]
    membership = np.zeros((size, n), dtype=bool)
    np.put_along_axis(membership, order, True, axis=1)
    return membership


def _random_count(
    scores: np.ndarray,
    n_x: int,
    observed_sum: float,
    tolerance: float,
    *,
    n_permutations: int,
    rng: np.random.Generator,
) -> int:
    """Draw random partitions until ``n_permutations`` distinct ones (first draws kept), count the extreme ones."""
    keys, sums = [], []
    n_distinct = 0
    while n_distinct < n_permutations:
        size = min(_CHUNK, max(n_permutations - n_distinct, 1024))
        membership = _random_memberships(rng, len(scores), n_x, size)
        keys.append(np.packbits(membership, axis=1))
        sums.append(membership @ scores)
        packed = np.concatenate(keys)
        as_bytes = np.ascontiguousarray(packed).view(np.dtype((np.void, packed.shape[1]))).ravel()
        _, first = np.unique(as_bytes, return_index=True)
        n_distinct = len(first)
    kept = np.sort(first)[:n_permutations]
    return int(np.count_nonzero(np.concatenate(sums)[kept] >= observed_sum - tolerance))


def weat_permutation_test(
    s_x: np.ndarray,
    s_y: np.ndarray,
    *,
    seed: int | np.random.SeedSequence,
    exact_limit: int = EXACT_LIMIT,
    n_permutations: int = RANDOM_PERMUTATIONS,
) -> PermutationTestResult:
    """One-sided p-value of s(X, Y, A, B) from the association scores of X and Y.

    Parameters
    ----------
    s_x, s_y : s(w, A, B) of the target words of X and of Y.
    seed : seeds the random partitions (unused when the test is exact).
    exact_limit : enumerate every partition when there are at most this many; p = k / C.
    n_permutations : otherwise draw this many distinct random partitions; p = (k + 1) / (B + 1).
    """
    s_x, s_y = np.asarray(s_x, dtype=np.float64), np.asarray(s_y, dtype=np.float64)
    scores = np.concatenate([s_x, s_y])
    n_x, n_y = len(s_x), len(s_y)
    if n_x < 1 or n_y < 1:
        raise ValueError("both target sets need at least one word")
    total = math.comb(n_x + n_y, n_x)
    observed_sum = float(s_x.sum())
    statistic = float(s_x.sum() - s_y.sum())
    # Compare sums over Xi; the tolerance is scipy's, scaled to the sum's magnitude.
    tolerance = _tolerance(observed_sum) + _tolerance(statistic)
    if total <= exact_limit or total <= n_permutations:
        count = _exact_count(scores, n_x, observed_sum, tolerance)
        return PermutationTestResult(statistic, count / total, "exact", total, total, n_x, n_y)
    rng = np.random.default_rng(seed)
    count = _random_count(scores, n_x, observed_sum, tolerance, n_permutations=n_permutations, rng=rng)
    return PermutationTestResult(
        statistic, (count + 1) / (n_permutations + 1), "randomised", n_permutations, total, n_x, n_y
    )
