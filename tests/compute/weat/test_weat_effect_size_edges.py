"""WEAT's d and its cosines: the whole result, the smallest target sets, single precision, and the refusals' words."""

from __future__ import annotations

import numpy as np
import pytest

from biaswh.compute.weat.association import unit_rows, word_associations
from biaswh.compute.weat.effect_size import EFFECT_SIZE_SD, EffectSize, weat_effect_size


def test_the_whole_result_holds_both_means_sizes_and_the_sd_used():
    s_x, s_y = np.array([0.3, 0.1, 0.25]), np.array([-0.2, 0.05])
    pooled = np.r_[s_x, s_y]
    sd = float(np.std(pooled, ddof=1))
    assert weat_effect_size(s_x, s_y) == EffectSize(
        effect_size=pytest.approx((s_x.mean() - s_y.mean()) / sd, rel=1e-15),
        test_statistic=pytest.approx(s_x.sum() - s_y.sum(), rel=1e-15),
        mean_x=float(s_x.mean()),
        mean_y=float(s_y.mean()),
        sd=sd,
        n_x=3,
        n_y=2,
        sd_definition=EFFECT_SIZE_SD,
    )


@pytest.mark.parametrize(("s_x", "s_y"), [([0.1, 0.4], [0.3]), ([0.1], [0.3, -0.2])])
def test_one_word_in_a_target_set_is_enough_with_three_in_all(s_x, s_y):
    effect = weat_effect_size(s_x, s_y)
    assert (effect.n_x, effect.n_y) == (len(s_x), len(s_y)) and np.isfinite(effect.effect_size)


@pytest.mark.parametrize(("s_x", "s_y"), [([0.1, 0.2, 0.3], []), ([], [0.1, 0.2, 0.3]), ([0.1], [0.2]), ([], [])])
def test_an_empty_target_set_or_fewer_than_three_words_are_refused_by_name(s_x, s_y):
    message = f"^need words in both target sets and at least 3 in all, got {len(s_x)} and {len(s_y)}$"
    with pytest.raises(ValueError, match=message):
        weat_effect_size(s_x, s_y)


def test_equal_scores_are_refused_by_name():
    with pytest.raises(
        ValueError, match="^every target word has the same association score: the SD is 0 and d is undefined$"
    ):
        weat_effect_size([0.5, 0.5], [0.5])


def test_single_precision_scores_and_vectors_are_computed_in_double():
    # Word vectors are often stored as float32: every step must still run in float64.
    rng = np.random.default_rng(3)
    s_x, s_y = rng.normal(0.1, 0.3, 9).astype(np.float32), rng.normal(0, 0.3, 7).astype(np.float32)
    assert weat_effect_size(s_x, s_y) == weat_effect_size(s_x.astype(np.float64), s_y.astype(np.float64))
    vectors = rng.normal(size=(6, 50)).astype(np.float32)
    rows = unit_rows(vectors)
    assert rows.dtype == np.float64 and np.array_equal(rows, unit_rows(vectors.astype(np.float64)))
    x, a, b = vectors[:2], vectors[2:4], vectors[4:]
    assert np.array_equal(word_associations(x, a, b), word_associations(*(v.astype(np.float64) for v in (x, a, b))))


def test_zero_vectors_are_counted_in_the_refusal():
    vectors = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 0.0]])
    with pytest.raises(ValueError, match=r"^2 zero vector\(s\): cosine similarity is undefined$"):
        unit_rows(vectors)
