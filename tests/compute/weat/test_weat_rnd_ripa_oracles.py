"""RND and RIPA in full against oracles: the distances and projections written out word by word, the
p by enumerating every partition (or every sign flip), the interval from resamples drawn by hand.

Each result is compared field by field, so a slip in a label, a sign, a count or a seed shows; the
planted cases put the value at exactly 0, the sign-flip tolerance at its edges (1000 eps of the
observed mean, at least 1) and some resamples of RIPA on no relation at all.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from biaswh.compute.weat.resampling import MetricResult, PermutationP, ResamplingSettings
from biaswh.compute.weat.ripa import CONVENTION as RIPA_CONVENTION
from biaswh.compute.weat.ripa import _sign_flip_p, relational_inner_product
from biaswh.compute.weat.rnd import CONVENTION as RND_CONVENTION
from biaswh.compute.weat.rnd import relative_norm_distance
from tests.compute.weat.test_weat_resampling_edges import _brute_force_p, _hand_drawn_p
from tests.compute.weat.test_weat_resampling_intervals import _hand_drawn_interval

EPS = np.finfo(np.float64).eps
SETTINGS = ResamplingSettings(confidence_level=0.9, bootstrap_resamples=300, exact_limit=126, n_permutations=199)
TARGET_CI = "percentile bootstrap over the target words of X and of Y (attribute sets fixed)"


def _vectors(seed: int = 17):
    rng = np.random.default_rng(seed)
    x, y, a = rng.normal(0, 1, (5, 7)), rng.normal(0, 1, (4, 7)), rng.normal(0, 1, (6, 7))
    x[:, 0] += 1.5
    a[:, 0] += 1.5
    return x, y, a


def _unit(matrix):
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def _rnd_by_hand(attribute):
    def kernel(x_mean, y_mean):
        gaps = [[np.linalg.norm(s - xm) - np.linalg.norm(s - ym) for s in attribute] for xm, ym in zip(x_mean, y_mean)]
        return np.mean(gaps, axis=1)

    return kernel


def _ripa_by_hand(attribute):
    def kernel(x_mean, y_mean):
        relations = [(xm - ym) / np.linalg.norm(xm - ym) for xm, ym in zip(x_mean, y_mean)]
        return np.array([np.mean([s @ b for s in attribute]) for b in relations])

    return kernel


def _expected(metric, kernel, x, y, attribute_set, seed, settings, **fields) -> MetricResult:
    """The whole result: value, interval and p from the hand-written kernel, the labels given."""
    both = np.concatenate([x, y])
    value = kernel(x.mean(0)[None], y.mean(0)[None])[0]
    low, high = _hand_drawn_interval(
        x, y, kernel, seed=np.random.SeedSequence([seed, 1]), n_resamples=settings.bootstrap_resamples,
        level=settings.confidence_level,
    )  # fmt: skip
    p, total = _brute_force_p(both, len(x), kernel, "two-sided")
    method, n_permutations = "exact", total
    if total > settings.exact_limit:
        p = _hand_drawn_p(
            both, len(x), kernel, seed=np.random.SeedSequence([seed, 2]), n_permutations=settings.n_permutations,
            alternative="two-sided",
        )  # fmt: skip
        method, n_permutations = "randomised", settings.n_permutations
    return MetricResult(
        metric=metric, attribute_set=attribute_set, value=pytest.approx(value, abs=1e-12), group_x_value=None,
        group_y_value=None, ci_low=pytest.approx(low, abs=1e-12), ci_high=pytest.approx(high, abs=1e-12),
        ci_method=TARGET_CI, confidence_level=settings.confidence_level,
        bootstrap_resamples=settings.bootstrap_resamples, p_value=pytest.approx(p, abs=1e-12), p_method=method,
        p_alternative="two-sided", n_permutations=n_permutations, n_target_x=len(x), n_target_y=len(y),
        n_attributes=fields.pop("n_attributes"), **fields,
    )  # fmt: skip


@pytest.mark.parametrize("exact_limit", [126, 125])
def test_rnd_in_full_on_unit_vectors_by_default_and_on_raw_ones(exact_limit):
    x, y, a = _vectors()
    settings = ResamplingSettings(
        confidence_level=0.9, bootstrap_resamples=300, exact_limit=exact_limit, n_permutations=499
    )
    result = relative_norm_distance(x, y, a, attribute_set="attribute_a", seed=4, settings=settings)
    ux, uy, ua = _unit(x), _unit(y), _unit(a)
    expected = _expected(
        "rnd", _rnd_by_hand(ua), ux, uy, "attribute_a", 4, settings, n_attributes=6, weat_sign=1,
        direction="attribute_a closer to target_x", vectors="unit", convention=RND_CONVENTION,
    )  # fmt: skip
    assert result == expected and result.value < 0
    raw = relative_norm_distance(x, y, a, attribute_set="attribute_b", seed=4, vectors="raw", settings=settings)
    assert raw == _expected(
        "rnd", _rnd_by_hand(a), x, y, "attribute_b", 4, settings, n_attributes=6, weat_sign=-1,
        direction="attribute_b closer to target_x", vectors="raw", convention=RND_CONVENTION,
    )  # fmt: skip
    farther = relative_norm_distance(y, x, a, attribute_set="attribute_a", seed=4, vectors="raw", settings=settings)
    assert farther.value > 0 and farther.direction == "attribute_a closer to target_y" and farther.weat_sign == -1


def test_rnd_of_an_attribute_word_at_a_groups_centre_is_a_distance_of_zero_not_nan():
    # X's one word is the attribute word: its distance is 0, whose square rounding often makes a tiny
    # negative (a tenth of these four-dimensional unit words here).
    rng = np.random.default_rng(0)
    few = ResamplingSettings(bootstrap_resamples=20, exact_limit=10)
    for _ in range(30):
        word, y = _unit(rng.normal(0, 1, (1, 4))), _unit(rng.normal(0, 1, (2, 4)))
        result = relative_norm_distance(word, y, word, attribute_set="attribute_a", seed=1, settings=few)
        assert result.value == pytest.approx(-np.linalg.norm(word[0] - y.mean(0)), abs=1e-7)  # sqrt of rounding
        assert np.isfinite([result.ci_low, result.ci_high]).all()


def test_rnd_and_ripa_at_exactly_zero_have_no_direction():
    x, y, s = np.array([[1.0, 0.0, 0.0]]), np.array([[-1.0, 0.0, 0.0]]), np.array([[0.0, 1.0, 0.0]])
    rnd = relative_norm_distance(x, y, s, attribute_set="attribute_a", seed=1, settings=SETTINGS)
    assert (rnd.value, rnd.weat_sign, rnd.direction, rnd.p_value) == (0.0, 0, "equidistant", 1.0)
    for variant, settings in (("mean_difference", SETTINGS), ("pairwise", SETTINGS)):
        ripa = relational_inner_product(
            x, y, s, attribute_set="attribute_b", seed=1, variant=variant, settings=settings
        )
        assert (ripa.value, ripa.weat_sign, ripa.direction, ripa.p_value) == (0.0, 0, "no lean", 1.0)


def test_ripa_in_full_with_the_relation_of_each_resample_and_a_resample_with_no_relation():
    x, y, a = _vectors(5)
    result = relational_inner_product(x, y, a, attribute_set="attribute_a", seed=8, settings=SETTINGS)
    expected = _expected(
        "ripa", _ripa_by_hand(_unit(a)), _unit(x), _unit(y), "attribute_a", 8, SETTINGS, n_attributes=6,
        weat_sign=1, direction="attribute_a leans towards target_x", vectors="unit",
        convention=RIPA_CONVENTION["mean_difference"],
    )  # fmt: skip
    assert result == expected and result.value > 0
    b_side = relational_inner_product(x, y, a, attribute_set="attribute_b", seed=8, vectors="raw", settings=SETTINGS)
    assert (
        b_side.weat_sign == -1 and b_side.vectors == "raw" and b_side.direction == "attribute_b leans towards target_x"
    )
    # X and Y share a word: a resample of that word alone in both has no relation (0/0), and is left out.
    shared = np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[1.0, 0.0], [0.6, -0.8]])
    planted = relational_inner_product(*shared, a[:, :2], attribute_set="attribute_a", seed=2, vectors="raw")
    oracle = _ripa_by_hand(a[:, :2])
    with np.errstate(divide="ignore", invalid="ignore"):
        low, high = _hand_drawn_interval(
            *shared, oracle, seed=np.random.SeedSequence([2, 1]), n_resamples=2000, level=0.95
        )
        assert np.isnan(oracle(shared[0][:1], shared[1][:1])).all()  # the shared word alone on both sides
    assert planted.value == pytest.approx(oracle(shared[0].mean(0)[None], shared[1].mean(0)[None])[0], abs=1e-12)
    assert (planted.ci_low, planted.ci_high) == (pytest.approx(low, abs=1e-12), pytest.approx(high, abs=1e-12))


def _sign_flip_by_hand(scores, *, rng=None, n_permutations=None, exact_limit=2**20):
    """Two-sided p of mean(scores): every sign vector when 2**n fit ``exact_limit``, else seeded draws."""
    n, observed = len(scores), abs(np.mean(scores))
    if 2**n <= exact_limit:
        flips = np.array(list(itertools.product([-1.0, 1.0], repeat=n)))
        return np.mean(np.abs(flips @ scores / n) >= observed - 1e-9), "exact", 2**n
    flips = rng.choice([-1.0, 1.0], size=(n_permutations, n))
    return (
        (np.count_nonzero(np.abs(flips @ scores / n) >= observed - 1e-9) + 1) / (n_permutations + 1),
        "randomised",
        n_permutations,
    )


@pytest.mark.parametrize("exact_limit", [32, 31])
def test_pairwise_ripa_in_full_against_its_pairs_drawn_by_hand(exact_limit):
    x, y, a = _vectors(9)
    x = x[: len(y) + 1]
    y = np.vstack([y, -x[-1:]])  # five pairs
    settings = ResamplingSettings(
        confidence_level=0.8, bootstrap_resamples=500, exact_limit=exact_limit, n_permutations=999
    )
    result = relational_inner_product(
        x, y, a, attribute_set="attribute_b", seed=6, variant="pairwise", settings=settings
    )
    ux, uy, ua = _unit(x), _unit(y), _unit(a)
    scores = np.array([np.mean([s @ (p - q) / np.linalg.norm(p - q) for s in ua]) for p, q in zip(ux, uy)])
    rng = np.random.default_rng(6)
    resamples = [np.repeat(scores, row).mean() for row in rng.multinomial(5, [0.2] * 5, size=500)]
    p, method, n_permutations = _sign_flip_by_hand(scores, rng=rng, n_permutations=999, exact_limit=exact_limit)
    assert result == MetricResult(
        metric="ripa_pairwise", attribute_set="attribute_b", value=pytest.approx(scores.mean(), abs=1e-12),
        group_x_value=None, group_y_value=None, weat_sign=-1, direction="attribute_b leans towards target_x",
        ci_low=pytest.approx(np.percentile(resamples, 10), abs=1e-12),
        ci_high=pytest.approx(np.percentile(resamples, 90), abs=1e-12),
        ci_method="percentile bootstrap over the (x_i, y_i) pairs", confidence_level=0.8, bootstrap_resamples=500,
        p_value=pytest.approx(p, abs=1e-12), p_method=method, p_alternative="two-sided", n_permutations=n_permutations,
        n_target_x=5, n_target_y=5, n_attributes=6, vectors="unit", convention=RIPA_CONVENTION["pairwise"],
    )  # fmt: skip
    assert scores.mean() > 0 and method == ("exact" if exact_limit == 32 else "randomised")


def test_the_sign_flip_p_counts_ties_within_1000_eps_of_the_observed_mean():
    exact = ResamplingSettings(exact_limit=4)

    def p(scores):
        result = _sign_flip_p(np.array(scores), np.random.default_rng(1), exact)
        assert (result.method, result.n_permutations, result.alternative) == ("exact", 4, "two-sided")
        return result.p_value

    # Two pairs, means exact in binary: a flip of the small score is that score short of the observed |mean|.
    assert p([0.5, 999.5 * EPS]) == 1.0 and p([-0.5, -999.5 * EPS]) == 1.0
    assert p([0.5, 1000.5 * EPS]) == 0.5 and p([-0.5, -1000.5 * EPS]) == 0.5
    # Above 1, the tolerance grows with the observed mean: 2 + 998 eps against a flip at 2 - 998 eps.
    assert p([4.0, 1996 * EPS]) == 1.0 and p([4.0, 2012 * EPS]) == 0.5
    # Exact ties count: a pair scoring 0 flips to the same mean.
    assert p([0.75, 0.0]) == 1.0 and p([0.75, 0.25]) == 0.5


def test_pairwise_ripa_refuses_unequal_sets_and_ripa_an_unknown_variant():
    x, y, a = _vectors()
    with pytest.raises(ValueError) as refused:
        relational_inner_product(x, y, a, attribute_set="attribute_a", seed=1, variant="pairwise")
    assert str(refused.value) == (
        "pairwise RIPA pairs X and Y by list position and needs equal sets, got 5 and 4 words:"
        ' use ripa = "mean_difference" or balance = true'
    )
    with pytest.raises(ValueError, match="^ripa must be 'mean_difference' or 'pairwise', got 'wefe'$"):
        relational_inner_product(x, y, a, attribute_set="attribute_a", seed=1, variant="wefe")


def test_a_flip_exactly_1000_eps_short_counts_whether_enumerated_or_drawn():
    scores = np.array([0.5, 1000 * EPS])  # flipping the second is exactly the tolerance short of the observed mean
    enumerated = _sign_flip_p(scores, np.random.default_rng(1), ResamplingSettings(exact_limit=4))
    assert (enumerated.p_value, enumerated.method) == (1.0, "exact")
    drawn = _sign_flip_p(scores, np.random.default_rng(1), ResamplingSettings(exact_limit=3, n_permutations=99))
    assert drawn == PermutationP(1.0, "randomised", 99, "two-sided")  # (99 + 1) / (99 + 1): every draw counts


def test_ripa_partitions_with_no_relation_are_left_out_silently():
    # Raw vectors: the partition {a, d} | {b, c} has equal second coordinates (0/0) and first ones
    # 0.5e-170 apart, whose square underflows (x/0); the observed {a, b} | {c, d} is well defined.
    a, b, c, d = (np.array(v) for v in ([0.0, 1.0], [1e-170, 1.0], [2e-170, 0.0], [4e-170, 0.0]))
    s = np.array([[0.3, 0.9], [-0.2, 0.4]])
    with np.errstate(divide="ignore", invalid="ignore"):
        expected, total = _brute_force_p(np.stack([a, b, c, d]), 2, _ripa_by_hand(s), "two-sided")
        assert np.isnan(_ripa_by_hand(s)(((a + d) / 2)[None], ((b + c) / 2)[None])).all()
    result = relational_inner_product(
        np.stack([a, b]), np.stack([c, d]), s, attribute_set="attribute_a", seed=1, vectors="raw", settings=SETTINGS
    )
    assert result.value == pytest.approx(np.mean(s @ [-1.25e-170, 1.0]), abs=1e-15)
    assert (result.p_value, result.n_permutations, total) == (pytest.approx(expected, abs=1e-12), 6, 6)
