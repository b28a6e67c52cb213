"""Word-set sensitivity against d recomputed from scratch: each word left out, and each hand-drawn resample.

Each test here failed on a mutant of compute/weat/sensitivity.py that test_weat_metrics.py let
through (issue 50). The oracle is WEAT's d computed word by word (s(w) = mean cos(w, A) - mean
cos(w, B), d = (mean s over X - mean s over Y) / sample SD of s over X and Y): on the sets with
one word removed, and on resamples drawn from the seed's stream 4 as the module draws them (the
multiplicities of X, Y, A and B, in that order) and expanded into lists of words.
"""

from __future__ import annotations

import numpy as np
import pytest

from biaswh.compute.weat.resampling import ResamplingSettings
from biaswh.compute.weat.sensitivity import word_set_sensitivity

ROLES = ("target_x", "target_y", "attribute_a", "attribute_b")


def _planted(seed: int, sizes=(5, 4, 6, 3)) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    x, y, a, b = (rng.normal(0, 0.6, (n, 8)) for n in sizes)
    for matrix, column in ((x, 0), (a, 0), (y, 1), (b, 1)):
        matrix[:, column] += 1.0
    return dict(zip(ROLES, (x, y, a, b)))


def _names(vectors):
    return {role: [f"{role}_{i}" for i in range(len(m))] for role, m in vectors.items()}


def _d(x, y, a, b) -> float:
    def s(w):
        cos = lambda m: [float(w @ v) / np.sqrt(float(w @ w) * float(v @ v)) for v in m]  # noqa: E731
        return np.mean(cos(a)) - np.mean(cos(b))

    s_x, s_y = [s(w) for w in x], [s(w) for w in y]
    return (np.mean(s_x) - np.mean(s_y)) / np.std(s_x + s_y, ddof=1)


def _unit(matrix):
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def _d_of_lists(x, y, a, b) -> float:
    """d as :func:`_d` computes it, on whole matrices of unit rows (the resamples are many)."""
    s_x, s_y = ((t @ a.T).mean(axis=1) - (t @ b.T).mean(axis=1) for t in (x, y))
    return (s_x.mean() - s_y.mean()) / np.concatenate([s_x, s_y]).std(ddof=1)


def _hand_drawn_d(vectors, seed: int, n_resamples: int) -> np.ndarray:
    rng = np.random.default_rng(np.random.SeedSequence([seed, 4]))
    values = []
    for start in range(0, n_resamples, 1000):
        size = min(1000, n_resamples - start)
        counts = [rng.multinomial(len(vectors[r]), np.full(len(vectors[r]), 1 / len(vectors[r])), size) for r in ROLES]
        for row in range(size):
            drawn = [np.repeat(_unit(vectors[r]), counts[i][row].astype(int), axis=0) for i, r in enumerate(ROLES)]
            with np.errstate(divide="ignore", invalid="ignore"):
                values.append(_d_of_lists(*drawn))
    values = np.array(values)
    return values[np.isfinite(values)]


@pytest.fixture(scope="module")
def planted():
    return _planted(5)


def test_d_and_its_interval_are_those_of_hand_drawn_resamples_of_every_set(planted):
    # 1,200 resamples: two blocks of draws, at an 80% level.
    settings = ResamplingSettings(confidence_level=0.8, bootstrap_resamples=1200)
    result = word_set_sensitivity(planted, _names(planted), seed=3, settings=settings)
    assert result.value == pytest.approx(_d(*(planted[r] for r in ROLES)), abs=1e-12) and result.value > 0.5
    expected = np.percentile(_hand_drawn_d(planted, seed=3, n_resamples=1200), [10, 90])
    assert (result.ci_low, result.ci_high) == pytest.approx(tuple(expected), abs=1e-9)
    assert (result.confidence_level, result.bootstrap_resamples) == (0.8, 1200)
    assert result.ci_method == "percentile bootstrap over the words of X, Y, A and B, each within its set"


def test_leaving_out_each_word_gives_the_spread_and_the_most_influential_words(planted):
    names = _names(planted)
    every = word_set_sensitivity(
        planted, names, seed=3, settings=ResamplingSettings(bootstrap_resamples=100), n_influential=18
    )
    result = word_set_sensitivity(planted, names, seed=3, settings=ResamplingSettings(bootstrap_resamples=100))
    rows = []
    for role in ROLES:
        for index, word in enumerate(names[role]):
            fewer = {r: (np.delete(m, index, axis=0) if r == role else m) for r, m in planted.items()}
            d_without = _d(*(fewer[r] for r in ROLES))
            rows.append({"set_role": role, "word": word, "d_without": d_without, "change": d_without - result.value})
    assert (result.spread_low, result.spread_high) == pytest.approx(
        (min(r["d_without"] for r in rows), max(r["d_without"] for r in rows)), abs=1e-12
    )
    assert result.spread_method == "min and max of d leaving out one used word of X, Y, A or B at a time"
    ranked = [
        {key: pytest.approx(value, abs=1e-12) if key in ("d_without", "change") else value for key, value in r.items()}
        for r in sorted(rows, key=lambda r: -abs(r["change"]))
    ]
    assert len(set(round(abs(r["change"]), 9) for r in rows)) == 18  # no ties: one order
    assert every.details == {"most_influential": ranked} and result.details == {"most_influential": ranked[:5]}


@pytest.mark.parametrize("swap", [False, True])
def test_the_result_names_its_direction_and_counts_and_has_no_p(planted, swap):
    x, y = (planted["target_y"], planted["target_x"]) if swap else (planted["target_x"], planted["target_y"])
    vectors = {**planted, "target_x": x, "target_y": y}
    result = word_set_sensitivity(
        vectors, _names(vectors), seed=3, settings=ResamplingSettings(bootstrap_resamples=100)
    )
    assert (result.value < 0) == swap and result.weat_sign == (-1 if swap else 1)
    assert result.direction == f"target_{'y' if swap else 'x'} closer to attribute_a"
    assert (result.metric, result.attribute_set, result.vectors) == ("d_word_sets", "both", "unit")
    assert (result.n_target_x, result.n_target_y, result.n_attributes) == (len(x), len(y), 9)
    assert (result.group_x_value, result.group_y_value, result.p_value, result.p_method) == (None, None, None, None)
    assert (result.p_alternative, result.n_permutations) == (None, None)
    assert "WEAT d (sample SD, ddof 1)" in result.convention


def test_a_set_of_one_word_and_equal_scores_are_refused(planted):
    one = {**planted, "attribute_b": planted["attribute_b"][:1]}
    with pytest.raises(ValueError, match="^leave-one-word-out needs at least 2 words in every set$"):
        word_set_sensitivity(one, _names(one), seed=3)
    two = {**planted, "attribute_b": planted["attribute_b"][:2]}
    assert word_set_sensitivity(two, _names(two), seed=3, settings=ResamplingSettings(bootstrap_resamples=100))
    same = np.tile(planted["target_x"][:1], (3, 1))
    equal = {**planted, "target_x": same, "target_y": same.copy()}
    with pytest.raises(ValueError, match="^every target word has the same association score: d is undefined$"):
        word_set_sensitivity(equal, _names(equal), seed=3)


def test_a_resample_whose_target_words_all_score_alike_has_no_d_and_is_left_out(planted):
    # X and Y share the basis vector e0 (its cosines are exact, so both copies score the same): a resample that
    # draws only e0 for X and for Y has d = 0 / 0.
    basis = np.eye(8)
    vectors = {**planted, "target_x": basis[[0, 2]], "target_y": basis[[0, 3]]}
    settings = ResamplingSettings(bootstrap_resamples=200)
    result = word_set_sensitivity(vectors, _names(vectors), seed=3, settings=settings)
    resampled = _hand_drawn_d(vectors, seed=3, n_resamples=200)
    assert 150 < len(resampled) < 200  # about one in sixteen has no d
    assert (result.ci_low, result.ci_high) == pytest.approx(tuple(np.percentile(resampled, [2.5, 97.5])), abs=1e-9)


def test_a_small_d_names_its_group_and_a_d_of_zero_names_none(planted):
    basis = np.eye(8)
    # The same two basis vectors in each group: their cosines are exact, so the group means are equal.
    same = {**planted, "target_x": basis[[0, 2]], "target_y": basis[[2, 0]]}
    none = word_set_sensitivity(same, _names(same), seed=3, settings=ResamplingSettings(bootstrap_resamples=100))
    assert none.value == 0 and none.weat_sign == 0 and none.direction == "no difference"
    weak = {**planted, "target_x": basis[[0, 2]], "target_y": basis[[2, 3]]}  # X leans to A by e0 against e3 only
    small = word_set_sensitivity(weak, _names(weak), seed=3, settings=ResamplingSettings(bootstrap_resamples=100))
    assert 0 < small.value < 1 and small.direction == "target_x closer to attribute_a"
