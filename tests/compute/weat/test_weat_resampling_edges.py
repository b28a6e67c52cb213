"""The metrics' shared resampling against brute force: partitions, draws, tolerance and fields.

The exact p is checked against an enumeration written with itertools; the drawn p against draws
made by hand from the same seed (one ``rng.permutation`` per partition; the bootstrap interval:
test_weat_resampling_intervals.py); the tolerance's edges against the rule the module documents
(1000 eps of the observed value's magnitude, at least 1) with a kernel that returns planted values.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from biaswh.compute.weat import resampling
from biaswh.compute.weat.resampling import (
    PermutationP,
    ResamplingSettings,
    in_shared_span,
    permutation_p,
    prepare,
    shared_fields,
    sign_of,
)

EPS = np.finfo(np.float64).eps


def _distance_kernel(x_mean: np.ndarray, y_mean: np.ndarray) -> np.ndarray:
    """A statistic of both means that is neither linear nor symmetric in X and Y."""
    return np.linalg.norm(x_mean - 0.5 * y_mean, axis=1) - y_mean[:, 0]


def _brute_force_p(features: np.ndarray, n_x: int, kernel, alternative: str) -> tuple[float, int]:
    def statistic(members) -> float:
        inside = np.zeros(len(features), dtype=bool)
        inside[list(members)] = True
        return float(kernel(features[inside].mean(axis=0)[None], features[~inside].mean(axis=0)[None])[0])

    observed = statistic(range(n_x))
    every = np.array([statistic(m) for m in itertools.combinations(range(len(features)), n_x)])
    exceeds = {
        "greater": every >= observed - 1e-9,
        "less": every <= observed + 1e-9,
        "two-sided": np.abs(every) >= abs(observed) - 1e-9,
    }[alternative]
    return float(exceeds.mean()), len(every)


@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
def test_the_exact_p_counts_every_partition_at_least_as_extreme_ties_included(alternative):
    # Small integers: many partitions tie with the observed one exactly, so `>` for `>=` shows.
    rng = np.random.default_rng(7)
    features_x, features_y = rng.integers(-2, 3, (4, 2)).astype(float), rng.integers(-2, 3, (5, 2)).astype(float)
    expected, total = _brute_force_p(np.concatenate([features_x, features_y]), 4, _distance_kernel, alternative)
    result = permutation_p(
        features_x, features_y, _distance_kernel, alternative=alternative, seed=1, exact_limit=126, n_permutations=9
    )
    assert result == PermutationP(pytest.approx(expected, abs=1e-12), "exact", total, alternative)
    assert total == math.comb(9, 4) == 126 and 0 < expected < 1


def test_one_score_a_word_and_more_partitions_than_one_chunk():
    # C(15, 6) = 5,005 partitions: more than one chunk of 4,096, each counted once.
    rng = np.random.default_rng(2)
    scores_x, scores_y = rng.normal(0.3, 1, 6), rng.normal(0, 1, 9)
    kernel = lambda xm, ym: (xm - ym)[:, 0]  # noqa: E731
    features = np.concatenate([scores_x, scores_y])[:, None]
    expected, total = _brute_force_p(features, 6, kernel, "greater")
    result = permutation_p(
        scores_x, scores_y, kernel, alternative="greater", seed=1, exact_limit=5005, n_permutations=9
    )
    assert (result.method, result.n_permutations, total) == ("exact", 5005, 5005)
    assert result.p_value == pytest.approx(expected, abs=1e-12)
    # One partition fewer allowed: the p is drawn instead.
    drawn = permutation_p(scores_x, scores_y, kernel, alternative="greater", seed=1, exact_limit=5004, n_permutations=9)
    assert (drawn.method, drawn.n_permutations) == ("randomised", 9)


def _hand_drawn_p(features: np.ndarray, n_x: int, kernel, *, seed, n_permutations: int, alternative: str) -> float:
    """(k + 1) / (B + 1) over B partitions, each the first n_x words of one seeded permutation."""
    rng = np.random.default_rng(seed)
    observed = float(kernel(features[:n_x].mean(axis=0)[None], features[n_x:].mean(axis=0)[None])[0])
    count = 0
    for _ in range(n_permutations):
        inside = np.zeros(len(features), dtype=bool)
        inside[rng.permutation(len(features))[:n_x]] = True
        value = float(kernel(features[inside].mean(axis=0)[None], features[~inside].mean(axis=0)[None])[0])
        count += {
            "greater": value >= observed - 1e-9,
            "less": value <= observed + 1e-9,
            "two-sided": abs(value) >= abs(observed) - 1e-9,
        }[alternative]
    return (count + 1) / (n_permutations + 1)


@pytest.mark.parametrize(("alternative", "n_permutations"), [("two-sided", 4500), ("greater", 300), ("less", 1)])
def test_the_drawn_p_equals_hand_drawn_partitions_from_the_same_seed(alternative, n_permutations):
    rng = np.random.default_rng(4)
    features_x, features_y = rng.normal(0.4, 1, (7, 3)), rng.normal(0, 1, (8, 3))
    seed = np.random.SeedSequence([9, 2])
    result = permutation_p(
        features_x, features_y, _distance_kernel, alternative=alternative, seed=seed,
        exact_limit=10, n_permutations=n_permutations,
    )  # fmt: skip
    expected = _hand_drawn_p(
        np.concatenate([features_x, features_y]), 7, _distance_kernel,
        seed=np.random.SeedSequence([9, 2]), n_permutations=n_permutations, alternative=alternative,
    )  # fmt: skip
    assert result == PermutationP(pytest.approx(expected, abs=1e-12), "randomised", n_permutations, alternative)


def _lookup_p(planted: dict[tuple, float], alternative: str) -> float:
    """The exact p when each partition of 4 one-hot words into 2 and 2 has the planted statistic."""
    observed_key = (1, 1, 0, 0)

    def kernel(x_mean, y_mean):
        return np.array([planted.get(tuple(np.rint(row * 2).astype(int)), 0.0) for row in x_mean])

    assert observed_key in planted
    features = np.eye(4)
    result = permutation_p(
        features[:2], features[2:], kernel, alternative=alternative, seed=1, exact_limit=6, n_permutations=9
    )
    assert result.method == "exact" and result.n_permutations == 6
    return result.p_value


def test_the_tolerance_is_1000_eps_of_the_observed_magnitude():
    # Observed 4 (its magnitude counts): a partition 999.5 eps short of it ties, one 1000.5 eps short does not.
    near, far = 4 - 4 * 999.5 * EPS, 4 - 4 * 1000.5 * EPS
    planted = {(1, 1, 0, 0): 4.0, (1, 0, 1, 0): near, (1, 0, 0, 1): far, (0, 1, 1, 0): -near, (0, 1, 0, 1): -far}
    assert _lookup_p(planted, "greater") == 2 / 6
    assert _lookup_p(planted, "two-sided") == 3 / 6
    # "less" tolerates as much above the observed value: -4 with partitions at -near and -far.
    flipped = {key: -value for key, value in planted.items()}
    assert _lookup_p(flipped, "less") == 2 / 6
    assert _lookup_p(flipped, "two-sided") == 3 / 6
    # Exactly 1000 eps short still counts, in each tail.
    edge = {(1, 1, 0, 0): 4.0, (1, 0, 1, 0): 4 - 4000 * EPS, (0, 1, 0, 1): -far}
    assert _lookup_p(edge, "greater") == 2 / 6 and _lookup_p(edge, "two-sided") == 2 / 6
    assert _lookup_p({key: -value for key, value in edge.items()}, "less") == 2 / 6


def test_the_tolerance_is_at_least_1000_eps_below_an_observed_value_of_1():
    # Observed 0.5: the tolerance is still 1000 eps (not 500, nor 2000).
    planted = {(1, 1, 0, 0): 0.5, (1, 0, 1, 0): 0.5 - 700 * EPS, (1, 0, 0, 1): 0.5 - 1500 * EPS}
    assert _lookup_p(planted, "greater") == 2 / 6
    planted = {(1, 1, 0, 0): -0.5, (1, 0, 1, 0): -0.5 + 700 * EPS, (1, 0, 0, 1): -0.5 + 1500 * EPS}
    assert _lookup_p(planted, "less") == 2 / 6
    assert _lookup_p(planted, "two-sided") == 2 / 6


def test_the_partitions_come_in_chunks_of_4096_each_partition_once():
    chunks = list(resampling._membership_chunks(15, 6))
    assert [c.shape for c in chunks] == [(4096, 15), (909, 15)]  # C(15, 6) = 5,005
    every = np.concatenate(chunks)
    assert (every.sum(axis=1) == 6).all() and len(np.unique(every, axis=0)) == 5005


def test_prepare_gives_double_rows_unit_long_or_as_they_are_and_refuses_what_it_cannot_scale():
    vectors = np.array([[3.0, 4.0], [0.0, -2.0]], dtype=np.float32)
    raw = prepare(vectors, "raw")
    assert raw.dtype == np.float64 and raw.tolist() == [[3.0, 4.0], [0.0, -2.0]]
    unit = prepare(vectors, "unit")
    assert unit.dtype == np.float64 and unit.tolist() == [[0.6, 0.8], [0.0, -1.0]]
    with pytest.raises(ValueError, match="^vectors must be 'unit' or 'raw', got 'cos'$"):
        prepare(vectors, "cos")
    with pytest.raises(ValueError, match="^a zero vector has no direction: it cannot be unit-normalised$"):
        prepare(np.array([[1.0, 0.0], [0.0, 0.0]]), "unit")


def test_the_shared_span_is_taken_only_when_there_are_fewer_rows_than_dimensions():
    rng = np.random.default_rng(1)
    square = rng.normal(size=(2, 4)), rng.normal(size=(2, 4))  # 4 rows in 4 dimensions: kept as they are
    assert all(kept is given for kept, given in zip(in_shared_span(*square), square))
    wide = rng.normal(size=(2, 5)), rng.normal(size=(2, 5))
    projected = in_shared_span(*wide)
    assert [m.shape for m in projected] == [(2, 4), (2, 4)]
    np.testing.assert_allclose(projected[0] @ projected[1].T, wide[0] @ wide[1].T, rtol=0, atol=1e-12)


def test_kept_partitions_are_kept_up_to_the_byte_limit_and_read_only(monkeypatch):
    total, n = math.comb(6, 3), 6
    monkeypatch.setattr(resampling, "_KEPT_BYTES", total * n * 8)  # exactly fits
    resampling._kept_membership_chunks.cache_clear()
    kept = resampling._exact_memberships(n, 3, total)
    assert kept is resampling._exact_memberships(n, 3, total)
    (chunk,) = kept
    assert chunk.shape == (20, 6) and sorted(map(tuple, chunk.astype(int))) == sorted(
        tuple(int(i in c) for i in range(6)) for c in itertools.combinations(range(6), 3)
    )
    with pytest.raises(ValueError, match="read-only"):
        chunk[0, 0] = 0.0
    monkeypatch.setattr(resampling, "_KEPT_BYTES", total * n * 8 - 1)
    streamed = resampling._exact_memberships(n, 3, total)
    assert not isinstance(streamed, tuple) and [c.tolist() for c in streamed] == [chunk.tolist()]


def test_sign_of_is_minus_one_zero_or_one_and_zero_when_undefined():
    assert [sign_of(v) for v in (-2.5, 0.0, 1e-300, np.nan, np.inf, -np.inf)] == [-1, 0, 1, 0, 0, 0]
    assert all(type(sign_of(v)) is int for v in (-2.5, 0.0, 3.0))


def test_shared_fields_fill_the_result_with_or_without_a_p():
    settings = ResamplingSettings(confidence_level=0.9, bootstrap_resamples=123)
    with_p = shared_fields(
        (-0.5, 1.5), PermutationP(0.04, "exact", 70, "less"), settings, n_target_x=4, n_target_y=5, n_attributes=6
    )
    assert with_p == {
        "ci_low": -0.5, "ci_high": 1.5,
        "ci_method": "percentile bootstrap over the target words of X and of Y (attribute sets fixed)",
        "confidence_level": 0.9, "bootstrap_resamples": 123,
        "p_value": 0.04, "p_method": "exact", "p_alternative": "less", "n_permutations": 70,
        "n_target_x": 4, "n_target_y": 5, "n_attributes": 6,
    }  # fmt: skip
    without = shared_fields((0.0, 1.0), None, settings, n_target_x=1, n_target_y=2, n_attributes=3, ci_method="m")
    assert without["ci_method"] == "m"
    assert [without[k] for k in ("p_value", "p_method", "p_alternative", "n_permutations")] == [None] * 4


def test_the_default_settings():
    assert ResamplingSettings() == resampling.DEFAULT_RESAMPLING
    assert (ResamplingSettings().confidence_level, ResamplingSettings().bootstrap_resamples) == (0.95, 2000)
    assert (ResamplingSettings().exact_limit, ResamplingSettings().n_permutations) == (20_000, 9999)
