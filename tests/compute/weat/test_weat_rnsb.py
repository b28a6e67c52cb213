"""RNSB against an independent fit of its logistic regression and scipy's KL divergence.

The oracle fits liblinear's problem itself: minimise 0.5 (|w|^2 + b^2) + sum log(1 + exp(-label (w.a + b)))
over the attribute words (A labelled +1, B -1, the intercept penalised as liblinear penalises it)
with scipy's BFGS, so P(B | w) = expit(-(w.t + b)) needs no scikit-learn. Each test here failed
on a mutant of compute/weat/rnsb.py that test_weat_metrics.py let through (issue 50): the KL's
normalisation or logarithm changed, the unused words of a resample counted, scikit-learn's default
solver in place of liblinear, the bootstrap drawn from the permutation's stream, 201 splits by
default. A word whose P(B | w) is 0 made RNSB undefined until it counted as 0 log 0 = 0.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import optimize, special, stats
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from biaswh.compute.weat.resampling import ResamplingSettings, permutation_p
from biaswh.compute.weat.rnsb import relative_negative_sentiment
from tests.compute.weat.test_weat_metric_oracles import planted_vectors

QUICK = ResamplingSettings(bootstrap_resamples=300, n_permutations=999, exact_limit=20_000)
ROLES = ("target_x", "target_y", "attribute_a", "attribute_b")


def _unit(matrix: np.ndarray) -> np.ndarray:
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


@pytest.fixture(scope="module")
def planted():
    """X (5 words) leans towards A, Y (4 words) towards B; 6 words in A and 3 in B (the intercept matters)."""
    return planted_vectors(21, sizes=(5, 4, 6, 3), dimension=8, shift=1.5)


def _negative_probability(attribute_a, attribute_b, targets) -> np.ndarray:
    """P(B | w) of each target word under liblinear's L2-penalised logistic regression, fitted by BFGS."""
    features = np.hstack([np.vstack([attribute_a, attribute_b]), np.ones((len(attribute_a) + len(attribute_b), 1))])
    labels = np.concatenate([np.ones(len(attribute_a)), -np.ones(len(attribute_b))])

    def loss(w):
        return 0.5 * w @ w + np.logaddexp(0, -labels * (features @ w)).sum()

    def gradient(w):
        return w - features.T @ (labels * special.expit(-labels * (features @ w)))

    w = optimize.minimize(loss, np.zeros(features.shape[1]), jac=gradient, method="BFGS", options={"gtol": 1e-10}).x
    return special.expit(-(targets @ w[:-1] + w[-1]))


def _kl(probabilities: np.ndarray) -> float:
    """KL of the normalised probabilities from the uniform distribution over the same words."""
    return float(stats.entropy(probabilities, np.full(len(probabilities), 1 / len(probabilities))))


def _bootstrap_kl(probability, n_x, seed, n_resamples):
    """KL of each resample of X and of Y (each within its set), drawn from the seed's stream 1, word by word."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 1]))
    n_y = len(probability) - n_x
    counts = np.hstack(
        [rng.multinomial(n, np.full(n, 1 / n), size=n_resamples) for n in (n_x, n_y)]
    )  # X's draws first, then Y's
    drawn = [np.repeat(probability, row.astype(int)) for row in counts]
    return np.array([_kl(words) for words in drawn if words.sum() > 0])


def test_rnsb_is_the_kl_of_an_independently_fitted_p_of_b_with_its_hand_drawn_interval(planted):
    x, y, a, b = (_unit(planted[r]) for r in ROLES)
    probability = _negative_probability(a, b, np.vstack([x, y]))
    result = relative_negative_sentiment(*(planted[r] for r in ROLES), seed=8, n_splits=5, settings=QUICK)
    assert result.value == pytest.approx(_kl(probability), abs=1e-5) and result.value > 0.01
    assert result.group_x_value == pytest.approx(probability[:5].mean(), abs=1e-4)
    assert result.group_y_value == pytest.approx(probability[5:].mean(), abs=1e-4)
    assert result.details["training_accuracy"] == 1.0
    resampled = _bootstrap_kl(probability, 5, seed=8, n_resamples=300)
    expected = np.percentile(resampled, [2.5, 97.5])
    assert (result.ci_low, result.ci_high) == pytest.approx(tuple(expected), abs=1e-5)
    assert result.ci_low < result.value < result.ci_high


def test_the_split_spread_is_over_seeded_stratified_80_20_splits(planted):
    # The fit itself is checked above; here scikit-learn's own liblinear fits each train_test_split split.
    x, y, a, b = (_unit(planted[r]) for r in ROLES)
    targets, features = np.vstack([x, y]), np.vstack([a, b])
    labels = np.concatenate([np.ones(len(a)), -np.ones(len(b))])
    values = []
    for split_seed in np.random.SeedSequence([8, 3]).generate_state(7):
        train, _, train_labels, _ = train_test_split(
            features, labels, test_size=0.2, stratify=labels, random_state=int(split_seed)
        )
        model = LogisticRegression(solver="liblinear", max_iter=10000).fit(train, train_labels)
        values.append(_kl(model.predict_proba(targets)[:, list(model.classes_).index(-1)]))
    assert len(set(np.round(values, 9))) > 2  # the splits differ
    result = relative_negative_sentiment(*(planted[r] for r in ROLES), seed=8, n_splits=7, settings=QUICK)
    assert (result.spread_low, result.spread_high) == pytest.approx(tuple(np.percentile(values, [2.5, 97.5])), abs=1e-9)
    assert result.spread_method == "percentile interval of KL over 7 seeded stratified 80/20 splits of A and B"
    # Without n_splits, 200 splits (the study passes [weat.metrics] rnsb_splits): three words a set keep it quick.
    few = [planted[r][:3] for r in ROLES]
    default = relative_negative_sentiment(*few, seed=8, settings=ResamplingSettings(bootstrap_resamples=100))
    assert default.spread_method.startswith("percentile interval of KL over 200 seeded")


def test_a_target_word_with_no_chance_of_b_adds_nothing_to_the_divergence(planted):
    # Raw vectors: X's words and one of Y's lie 10,000 times further out than A, so 1 - expit(d) is 0 for them.
    x, y, a, b = (planted[r] for r in ROLES)
    far = 1e4 * a[:2]
    x, y = far, np.vstack([far[:1], y[1:2]])
    probability = _negative_probability(a, b, np.vstack([x, y]))
    assert (probability[:3] == 0).all() and probability[3] > 0.5
    result = relative_negative_sentiment(x, y, a, b, seed=8, vectors="raw", n_splits=5, settings=QUICK)
    assert result.value == pytest.approx(_kl(probability), abs=1e-5)  # log 4: all the mass on one word of four
    assert result.group_x_value == 0 and result.weat_sign == 1
    # A resample of Y's far word twice (and X's) has no KL and is left out of the interval.
    resampled = _bootstrap_kl(probability, 2, seed=8, n_resamples=300)
    assert len(resampled) < 300
    expected = np.percentile(resampled, [2.5, 97.5])
    assert (result.ci_low, result.ci_high) == pytest.approx(tuple(expected), abs=1e-5)


@pytest.fixture(scope="module")
def unplanted(planted):
    """The same attribute sets, target words drawn with no lean: a gap in the middle of its null."""
    rng = np.random.default_rng(4)
    return {**planted, "target_x": rng.normal(0, 1, (5, 8)), "target_y": rng.normal(0, 1, (4, 8))}


def test_the_p_is_the_two_sided_permutation_p_of_the_gap_in_p_of_b(unplanted):
    planted = unplanted
    x, y, a, b = (_unit(planted[r]) for r in ROLES)
    probability = _negative_probability(a, b, np.vstack([x, y]))
    gap = probability[:5].mean() - probability[5:].mean()
    observed = abs(gap)
    gaps = [
        abs(probability[list(inside)].mean() - np.delete(probability, list(inside)).mean())
        for inside in itertools.combinations(range(9), 5)
    ]
    result = relative_negative_sentiment(*(planted[r] for r in ROLES), seed=8, n_splits=5, settings=QUICK)
    assert (result.metric, result.attribute_set, result.p_method, result.p_alternative) == (
        "rnsb", "both", "exact", "two-sided"
    )  # fmt: skip
    assert result.n_permutations == 126 and result.p_value == np.mean(np.array(gaps) >= observed - 1e-9)
    assert result.details["probability_gap_x_minus_y"] == pytest.approx(gap, abs=1e-4)
    # Drawn partitions come from the seed's stream 2, as permutation_p draws them.
    drawn = ResamplingSettings(bootstrap_resamples=100, n_permutations=999, exact_limit=10)
    twice = [
        relative_negative_sentiment(*(planted[r] for r in ROLES), seed=8, n_splits=2, settings=drawn) for _ in "ab"
    ]
    reference = permutation_p(
        probability[:5],
        probability[5:],
        lambda xm, ym: (xm - ym)[:, 0],
        alternative="two-sided",
        seed=np.random.SeedSequence([8, 2]),
        exact_limit=10,
        n_permutations=999,
    )
    assert twice[0] == twice[1] and twice[0].p_method == "randomised" and twice[0].n_permutations == 999
    assert twice[0].p_value == reference.p_value and 0.005 < reference.p_value < 0.5


def test_the_result_names_its_direction_counts_labels_and_methods(planted):
    x, y, a, b = (planted[r] for r in ROLES)
    # Swapped groups: now X (Y's 4 words) is the one more often classed B.
    result = relative_negative_sentiment(y, x, a, b, seed=8, vectors="raw", n_splits=3, settings=QUICK)
    gap = result.group_x_value - result.group_y_value
    assert gap > 0 and result.weat_sign == -1 and result.direction == "target_x more often classed attribute_b"
    assert (result.metric, result.attribute_set, result.vectors) == ("rnsb", "both", "raw")
    assert (result.n_target_x, result.n_target_y, result.n_attributes) == (4, 5, 9)
    assert result.convention.startswith("KL(P || uniform) of P(B | w)") and result.spread_low < result.spread_high
    assert result.ci_method == "percentile bootstrap of KL over the target words of X and of Y (classifier fixed)"
    assert result.p_value is not None and result.details == {
        "regression": {
            "estimator": "LogisticRegression",
            "solver": "liblinear",
            "max_iter": 10000,
            "random_state": int(np.random.SeedSequence([8, 0]).generate_state(1)[0]),
        },
        "label_attribute_a": 1,
        "label_attribute_b": -1,
        "training_accuracy": 1.0,
        "probability_gap_x_minus_y": gap,
    }


def test_identical_groups_have_no_gap_and_no_direction(planted):
    # Basis vectors, the same two in each group: w.t is one coefficient exactly, so P(B | t) has no rounding.
    a, b = planted["attribute_a"], planted["attribute_b"]
    basis = np.eye(8)
    result = relative_negative_sentiment(basis[[0, 2]], basis[[2, 0]], a, b, seed=8, n_splits=3, settings=QUICK)
    assert result.group_x_value == result.group_y_value and result.details["probability_gap_x_minus_y"] == 0
    assert result.weat_sign == 0 and result.direction == "no difference" and result.p_value == 1.0
