"""MAC on planted vectors against a word-by-word computation and a brute-force permutation p.

Each test here failed on a mutant of compute/weat/mac.py that test_weat_metrics.py let through
(issue 50): the attribute-B row's sign read as attribute A's, the direction worded for the wrong
group or for a zero difference, the two-sided p dropped or its alternative misnamed, the counts of
words, metric name and vector handling left out of the result.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from biaswh.compute.weat.mac import mean_average_cosine
from biaswh.compute.weat.resampling import ResamplingSettings
from tests.compute.weat.test_weat_metric_oracles import planted_vectors

QUICK = ResamplingSettings(bootstrap_resamples=200, n_permutations=999, exact_limit=20_000)


@pytest.fixture(scope="module")
def planted():
    """X (5 words) leans towards A, Y (4 words) towards B; X's raw lengths vary a lot."""
    vectors = planted_vectors(21, sizes=(5, 4, 6, 3), dimension=8, shift=1.5)
    vectors["target_x"] *= np.random.default_rng(22).uniform(0.2, 5, (5, 1))
    return vectors


def _distance(word: np.ndarray, attribute: np.ndarray) -> float:
    """Mean over the attribute words of 1 - cos, one pair at a time."""
    cosines = [float(word @ s) / math.sqrt(float(word @ word) * float(s @ s)) for s in attribute]
    return sum(1 - c for c in cosines) / len(cosines)


def _two_sided_p(scores_x: list[float], scores_y: list[float]) -> float:
    """Share of all re-partitions of the target words whose |mean difference| reaches the observed one."""
    scores = scores_x + scores_y
    observed = abs(np.mean(scores_x) - np.mean(scores_y))
    extreme = total = 0
    for members in itertools.combinations(range(len(scores)), len(scores_x)):
        inside = [scores[i] for i in members]
        outside = [scores[i] for i in range(len(scores)) if i not in members]
        extreme += abs(np.mean(inside) - np.mean(outside)) >= observed - 1e-12
        total += 1
    return extreme / total


@pytest.mark.parametrize("role", ["attribute_a", "attribute_b"])
def test_one_attribute_sets_mac_is_the_group_gap_with_its_two_sided_permutation_p(planted, role):
    x, y, attribute = planted["target_x"], planted["target_y"], planted[role]
    scores_x, scores_y = [_distance(w, attribute) for w in x], [_distance(w, attribute) for w in y]
    result = mean_average_cosine(x, y, {role: attribute}, seed=4, settings=QUICK)
    assert result.group_x_value == pytest.approx(np.mean(scores_x), abs=1e-12)
    assert result.group_y_value == pytest.approx(np.mean(scores_y), abs=1e-12)
    assert result.value == pytest.approx(np.mean(scores_x) - np.mean(scores_y), abs=1e-12)
    # X leans to A: closer to A than Y is (gap < 0), farther from B (gap > 0); both read like d > 0.
    closer = "target_x" if role == "attribute_a" else "target_y"
    assert (result.value < 0) == (role == "attribute_a") and result.weat_sign == 1
    assert result.direction == f"{closer} closer to {role}"
    assert (result.p_method, result.p_alternative, result.n_permutations) == ("exact", "two-sided", math.comb(9, 5))
    assert result.p_value == pytest.approx(_two_sided_p(scores_x, scores_y), abs=1e-12)
    assert (result.metric, result.attribute_set, result.vectors) == ("mac", role, "unit")
    assert (result.n_target_x, result.n_target_y, result.n_attributes) == (5, 4, len(attribute))
    assert "1 - cos(w, s)" in result.convention and result.ci_low <= result.value <= result.ci_high


def test_a_gap_below_one_still_names_the_group_that_is_closer(planted):
    # Cosine distances lie in [0, 2]: a gap between 0 and 1 is the usual case, and Y is the closer group here.
    y, x, a = planted["target_x"], planted["target_y"], planted["attribute_a"]
    result = mean_average_cosine(x, y, {"attribute_a": a}, seed=4, settings=QUICK)
    assert 0 < result.value < 1 and result.direction == "target_y closer to attribute_a" and result.weat_sign == -1


@pytest.mark.parametrize("role", ["attribute_a", "attribute_b"])
def test_identical_groups_have_no_difference_and_no_direction(planted, role):
    x = planted["target_x"]
    result = mean_average_cosine(x, x.copy(), {role: planted[role]}, seed=4, settings=QUICK)
    assert result.value == 0 and result.weat_sign == 0 and result.direction == "no difference"
    assert result.p_value == 1.0  # every re-partition is at least as far apart as no gap at all


def test_the_pooled_value_has_no_direction_and_counts_every_attribute_word(planted):
    x, y, a, b = (planted[r] for r in ("target_x", "target_y", "attribute_a", "attribute_b"))
    pooled = mean_average_cosine(x, y, {"attribute_a": a, "attribute_b": b}, seed=4, settings=QUICK)
    every = [(_distance(w, a) + _distance(w, b)) / 2 for w in (*x, *y)]
    assert pooled.value == pytest.approx(np.mean(every), abs=1e-12)
    assert (pooled.metric, pooled.attribute_set, pooled.vectors, pooled.weat_sign) == ("mac", "both", "unit", 0)
    assert pooled.direction == "no direction (pooled over both groups and both attribute sets)"
    assert (pooled.p_value, pooled.p_method, pooled.p_alternative, pooled.n_permutations) == (None, None, None, None)
    assert (pooled.n_target_x, pooled.n_target_y, pooled.n_attributes) == (5, 4, 9)
