"""Associations and the effect size d against a direct, loop-by-loop computation of the paper's formulas."""

from __future__ import annotations

import math

import numpy as np
import pytest

from biaswh.compute.weat.association import word_associations
from biaswh.compute.weat.effect_size import weat_effect_size


def _cosine(u, v) -> float:
    return sum(a * b for a, b in zip(u, v)) / math.sqrt(sum(a * a for a in u) * sum(b * b for b in v))


def _direct_d(X, Y, A, B) -> float:
    s = lambda w: (sum(_cosine(w, a) for a in A) / len(A)) - (sum(_cosine(w, b) for b in B) / len(B))  # noqa: E731
    scores_x, scores_y = [s(x) for x in X], [s(y) for y in Y]
    pooled = scores_x + scores_y
    mean = sum(pooled) / len(pooled)
    sd = math.sqrt(sum((v - mean) ** 2 for v in pooled) / (len(pooled) - 1))
    return (sum(scores_x) / len(scores_x) - sum(scores_y) / len(scores_y)) / sd


def test_d_matches_the_direct_formula_with_sample_sd_over_all_targets():
    rng = np.random.default_rng(0)
    X, Y, A, B = (rng.normal(size=(n, 6)) for n in (5, 7, 4, 3))
    s_x, s_y = word_associations(X, A, B), word_associations(Y, A, B)
    effect = weat_effect_size(s_x, s_y)
    assert effect.effect_size == pytest.approx(_direct_d(X.tolist(), Y.tolist(), A.tolist(), B.tolist()), rel=1e-10)
    assert effect.test_statistic == pytest.approx(s_x.sum() - s_y.sum())
    assert effect.sd == pytest.approx(np.std(np.concatenate([s_x, s_y]), ddof=1))


def test_swapping_targets_flips_the_sign_and_scaling_vectors_changes_nothing():
    rng = np.random.default_rng(1)
    X, Y, A, B = (rng.normal(size=(4, 5)) for _ in range(4))
    d = weat_effect_size(word_associations(X, A, B), word_associations(Y, A, B)).effect_size
    flipped = weat_effect_size(word_associations(Y, A, B), word_associations(X, A, B)).effect_size
    scaled = weat_effect_size(word_associations(3 * X, A, 0.5 * B), word_associations(Y, 7 * A, B)).effect_size
    assert flipped == pytest.approx(-d) and scaled == pytest.approx(d)


def test_equal_scores_or_zero_vectors_are_refused_not_nan():
    with pytest.raises(ValueError, match="SD is 0"):
        weat_effect_size(np.array([0.1, 0.1]), np.array([0.1, 0.1]))
    with pytest.raises(ValueError, match="zero vector"):
        word_associations(np.zeros((1, 3)), np.ones((1, 3)), np.ones((1, 3)))
