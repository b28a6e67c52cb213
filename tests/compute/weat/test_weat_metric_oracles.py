"""The embedding metrics against oracles that need no reference implementation.

Each test here failed on a slip that the direct-computation tests in test_weat_metrics.py let
through (issue 50): ECT's tail flipped, the attribute-B rows computed on attribute A, the
metric bootstrap unseeded, pairwise RIPA's relation reversed. The oracles are a brute-force
enumeration of the partitions, the metric recomputed on the row's own attribute set, the same
seed giving the same interval, and properties that hold for any vectors: swapping the target
groups flips the sign of every directional metric.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from biaswh.compute.weat.association import word_associations
from biaswh.compute.weat.bootstrap import effect_size_interval
from biaswh.compute.weat.ect import embedding_coherence
from biaswh.compute.weat.effect_size import weat_effect_size
from biaswh.compute.weat.mac import mean_average_cosine
from biaswh.compute.weat.metrics import MetricSettings, run_metrics
from biaswh.compute.weat.resampling import ResamplingSettings
from biaswh.compute.weat.ripa import relational_inner_product
from biaswh.compute.weat.rnd import relative_norm_distance
from biaswh.compute.weat.rnsb import relative_negative_sentiment
from biaswh.stats.paired.sign_flip import sign_flip_test

QUICK = ResamplingSettings(bootstrap_resamples=200, n_permutations=999, exact_limit=20_000)
# For the properties: few resamples, and exact partitions for up to 10 target words (C(10, 5) = 252).
TINY = ResamplingSettings(bootstrap_resamples=50, n_permutations=99, exact_limit=300)
PER_ATTRIBUTE = {"rnd": relative_norm_distance, "ect": embedding_coherence, "ripa": relational_inner_product}


def planted_vectors(seed: int, sizes=(7, 6, 8, 9), dimension: int = 12, shift: float = 2.0) -> dict[str, np.ndarray]:
    """Random vectors where X and A share a raised dimension 0, and Y and B a raised dimension 1."""
    rng = np.random.default_rng(seed)
    x, y, a, b = (rng.normal(0, 0.5, (n, dimension)) for n in sizes)
    for matrix, column in ((x, 0), (a, 0), (y, 1), (b, 1)):
        matrix[:, column] += shift
    return {"target_x": x, "target_y": y, "attribute_a": a, "attribute_b": b}


def unit(matrix: np.ndarray) -> np.ndarray:
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


@pytest.fixture(scope="module")
def planted():
    return planted_vectors(11, sizes=(6, 5, 8, 9))


def test_ect_p_is_the_share_of_partitions_at_most_as_coherent_as_the_observed_one(planted):
    x, y, a = (unit(planted[r]) for r in ("target_x", "target_y", "attribute_a"))
    targets = np.vstack([x, y])

    def coherence(members) -> float:
        inside = np.zeros(len(targets), dtype=bool)
        inside[list(members)] = True
        similarity = [a @ unit(targets[group].mean(axis=0)[None])[0] for group in (inside, ~inside)]
        return stats.spearmanr(*similarity).statistic

    observed = coherence(range(len(x)))
    every = np.array([coherence(m) for m in itertools.combinations(range(len(targets)), len(x))])
    less_coherent, more_coherent = np.mean(every <= observed + 1e-9), np.mean(every >= observed - 1e-9)
    assert abs(less_coherent - more_coherent) > 0.1  # the data tells the two tails apart
    result = embedding_coherence(x, y, a, attribute_set="attribute_a", seed=1, settings=QUICK)
    assert result.p_method == "exact" and result.n_permutations == len(every)
    assert result.p_value == pytest.approx(less_coherent, abs=1e-12)


def test_each_attribute_sets_rows_are_computed_on_that_set(planted):
    words = {role: [f"{role}_{i}" for i in range(len(m))] for role, m in planted.items()}
    metric_settings = MetricSettings(names=("rnd", "ect", "ripa"), bootstrap_resamples=100)
    outcomes = run_metrics(
        planted, words, embedding="e", test_set="s", test="t", settings=metric_settings, confidence_level=0.95,
        study_seed=3,
    )  # fmt: skip
    resampling = ResamplingSettings(bootstrap_resamples=100, n_permutations=9999, exact_limit=20_000)
    values = {}
    for outcome in outcomes:
        direct = PER_ATTRIBUTE[outcome.metric](
            planted["target_x"],
            planted["target_y"],
            planted[outcome.attribute_set],
            attribute_set=outcome.attribute_set,
            seed=outcome.seed,
            settings=resampling,
        )
        assert outcome.result == direct, (outcome.metric, outcome.attribute_set)
        values[outcome.metric, outcome.attribute_set] = outcome.result.value
    assert len(values) == 6
    # X leans to A and Y to B: A is closer to X (RND < 0), B closer to Y (RND > 0); RIPA likewise.
    assert values["rnd", "attribute_a"] < 0 < values["rnd", "attribute_b"]
    assert values["ripa", "attribute_b"] < 0 < values["ripa", "attribute_a"]
    assert values["ect", "attribute_a"] != values["ect", "attribute_b"]


@pytest.mark.parametrize("metric", sorted(PER_ATTRIBUTE))
def test_a_metrics_interval_and_randomised_p_follow_its_seed(planted, metric):
    randomised = ResamplingSettings(bootstrap_resamples=200, n_permutations=999, exact_limit=10)
    x, y, a = planted["target_x"], planted["target_y"], planted["attribute_a"]

    def run(seed):
        result = PER_ATTRIBUTE[metric](x, y, a, attribute_set="attribute_a", seed=seed, settings=randomised)
        return result.ci_low, result.ci_high, result.p_value, result.p_method

    first, again, other = run(5), run(5), run(6)
    assert first == again and first[3] == "randomised"
    assert first[:2] != other[:2]


def test_mac_and_the_interval_of_d_follow_their_seed(planted):
    x, y, a, b = (planted[r] for r in ("target_x", "target_y", "attribute_a", "attribute_b"))
    mac = [mean_average_cosine(x, y, {"attribute_a": a}, seed=s, settings=QUICK) for s in (5, 5, 6)]
    assert (mac[0].ci_low, mac[0].ci_high) == (mac[1].ci_low, mac[1].ci_high) != (mac[2].ci_low, mac[2].ci_high)
    s_x, s_y = (word_associations(t, a, b) for t in (x, y))
    d = [effect_size_interval(s_x, s_y, seed=s, n_resamples=500) for s in (5, 5, 6)]
    assert d[0] == d[1] and (d[0].low, d[0].high) != (d[2].low, d[2].high)


def test_pairwise_ripa_projects_each_attribute_word_on_x_minus_y_of_each_pair(planted):
    x, y, a = (unit(planted[r]) for r in ("target_x", "target_y", "attribute_a"))
    x = x[: len(y)]
    relations = unit(x - y)
    expected = np.mean([[word @ relation for word in a] for relation in relations])
    result = relational_inner_product(x, y, a, attribute_set="attribute_a", seed=1, variant="pairwise", settings=QUICK)
    assert result.value == pytest.approx(expected, abs=1e-12)
    assert result.value > 0 and result.weat_sign == 1 and result.direction == "attribute_a leans towards target_x"


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_x=st.integers(3, 5), n_y=st.integers(3, 5))
def test_swapping_the_target_groups_flips_every_directional_metric(seed, n_x, n_y):
    vectors = planted_vectors(seed, sizes=(n_x, n_y, 4, 5), dimension=6, shift=0.3)
    x, y, a, b = (vectors[r] for r in ("target_x", "target_y", "attribute_a", "attribute_b"))
    m = min(n_x, n_y)
    pairs = {
        "rnd": lambda p, q: relative_norm_distance(p, q, a, attribute_set="attribute_a", seed=1, settings=TINY),
        "ripa": lambda p, q: relational_inner_product(p, q, b, attribute_set="attribute_b", seed=1, settings=TINY),
        "ripa_pairwise": lambda p, q: relational_inner_product(
            p[:m], q[:m], a, attribute_set="attribute_a", seed=1, variant="pairwise", settings=TINY
        ),
        "mac": lambda p, q: mean_average_cosine(p, q, {"attribute_b": b}, seed=1, settings=TINY),
        "rnsb": lambda p, q: relative_negative_sentiment(p, q, a, b, seed=1, n_splits=3, settings=TINY),
    }
    for name, metric in pairs.items():
        forward, backward = metric(x, y), metric(y, x)
        assert forward.weat_sign != 0 and backward.weat_sign == -forward.weat_sign, name
        if name == "rnsb":  # a divergence over all target words: the sign lives in weat_sign only
            assert backward.value == pytest.approx(forward.value, abs=1e-9)
        else:
            assert backward.value == pytest.approx(-forward.value, rel=1e-9, abs=1e-12), name
    s_x, s_y = (word_associations(t, a, b) for t in (x, y))
    assert weat_effect_size(s_y, s_x).effect_size == pytest.approx(-weat_effect_size(s_x, s_y).effect_size)
    # ECT compares the two groups' rankings: symmetric, no direction.
    ect = [
        embedding_coherence(p, q, a, attribute_set="attribute_a", seed=1, settings=TINY) for p, q in ((x, y), (y, x))
    ]
    assert ect[0].value == pytest.approx(ect[1].value) and ect[0].weat_sign == ect[1].weat_sign == 0


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_per_attribute_metric_tells_a_planted_a_from_a_planted_b(seed):
    vectors = planted_vectors(seed, sizes=(4, 4, 5, 5), dimension=6, shift=2.0)
    words = {role: [f"{role}_{i}" for i in range(len(m))] for role, m in vectors.items()}
    metric_settings = MetricSettings(names=("rnd", "ripa"), bootstrap_resamples=100)
    outcomes = run_metrics(
        vectors, words, embedding="e", test_set="s", test="t", settings=metric_settings, confidence_level=0.95,
        study_seed=seed,
    )  # fmt: skip
    sign = {(o.metric, o.attribute_set): o.result.weat_sign for o in outcomes}
    # A near X and B near Y read the same way as d > 0, from either attribute set.
    assert set(sign.values()) == {1}
    value = {(o.metric, o.attribute_set): o.result.value for o in outcomes}
    assert value["rnd", "attribute_a"] < 0 < value["rnd", "attribute_b"]
    assert value["ripa", "attribute_b"] < 0 < value["ripa", "attribute_a"]


def test_ect_on_raw_vectors_ranks_raw_cosines_and_reports_what_it_computed(planted):
    x, y, a = (planted[r] for r in ("target_x", "target_y", "attribute_a"))
    # Attribute words of very different lengths, in no order the cosines follow.
    a = a * np.array([3.0, 0.5, 2.0, 0.7, 2.6, 1.1, 0.9, 1.8])[:, None]

    def cosines(group):
        mean = group.mean(axis=0)
        return a @ mean / (np.linalg.norm(a, axis=1) * np.linalg.norm(mean))

    reference = stats.spearmanr(cosines(x), cosines(y))
    result = embedding_coherence(x, y, a, attribute_set="attribute_b", seed=1, vectors="raw", settings=QUICK)
    assert result.value == pytest.approx(reference.statistic, abs=1e-12)
    assert result.details == {"spearman_p_rho_zero": pytest.approx(reference.pvalue, abs=1e-12)}
    assert (result.metric, result.attribute_set, result.vectors, result.weat_sign) == ("ect", "attribute_b", "raw", 0)
    assert result.direction == "no direction (rank coherence; 1 = no bias)" and "Spearman rho" in result.convention
    assert (result.n_target_x, result.n_target_y, result.n_attributes) == (len(x), len(y), len(a))
    assert result.group_x_value is None and result.ci_low <= result.value <= result.ci_high


def test_ect_needs_three_attribute_words_and_a_rankable_set(planted):
    x, y, a = (planted[r] for r in ("target_x", "target_y", "attribute_a"))
    assert embedding_coherence(x, y, a[:3], attribute_set="attribute_a", seed=1, settings=TINY).n_attributes == 3
    with pytest.raises(ValueError, match="ECT needs at least 3 attribute words to rank, got 2"):
        embedding_coherence(x, y, a[:2], attribute_set="attribute_a", seed=1, settings=TINY)
    # Identical attribute words: every cosine ties, rho is 0/0.
    with pytest.raises(ValueError, match="the statistic is undefined"):
        embedding_coherence(x, y, np.repeat(a[:1], 4, axis=0), attribute_set="attribute_a", seed=1, settings=TINY)


def test_ripa_is_the_mean_projection_on_the_unit_group_difference_and_b_reads_reversed(planted):
    x, y, b = (unit(planted[r]) for r in ("target_x", "target_y", "attribute_b"))
    relation = x.mean(axis=0) - y.mean(axis=0)
    expected = np.mean(b @ (relation / np.linalg.norm(relation)))
    result = relational_inner_product(x, y, b, attribute_set="attribute_b", seed=1, settings=QUICK)
    assert result.value == pytest.approx(expected, abs=1e-12) and result.value < 0  # B leans towards Y
    assert result.weat_sign == 1 and result.direction == "attribute_b leans towards target_y"
    assert (result.metric, result.p_method, result.p_alternative) == ("ripa", "exact", "two-sided")
    assert result.ci_low <= result.value <= result.ci_high


def test_pairwise_ripas_p_is_the_sign_flip_test_of_its_pair_scores(planted):
    x, y, b = (unit(planted[r]) for r in ("target_x", "target_y", "attribute_b"))
    x = x[: len(y)]
    pair_scores = (unit(x - y) @ b.T).mean(axis=1)
    reference = sign_flip_test(pair_scores, seed=1).p_value
    result = relational_inner_product(x, y, b, attribute_set="attribute_b", seed=1, variant="pairwise", settings=QUICK)
    assert result.p_method == "exact" and result.n_permutations == 2 ** len(y)
    assert result.p_value == pytest.approx(reference, abs=1e-12)
    assert result.weat_sign == 1 and result.direction == "attribute_b leans towards target_y"
    assert result.ci_method == "percentile bootstrap over the (x_i, y_i) pairs"
    assert result.ci_low <= result.value <= result.ci_high and result.ci_low < result.ci_high
    drawn = ResamplingSettings(bootstrap_resamples=200, n_permutations=1999, exact_limit=4)
    randomised = [
        relational_inner_product(x, y, b, attribute_set="attribute_b", seed=s, variant="pairwise", settings=drawn)
        for s in (1, 1)
    ]
    assert randomised[0] == randomised[1] and randomised[0].p_method == "randomised"
    assert randomised[0].p_value == pytest.approx(reference, abs=0.03)
