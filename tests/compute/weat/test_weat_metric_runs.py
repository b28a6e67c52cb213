"""run_metrics: every row is its metric called directly with the study's settings and its derived seed.

Each test here failed on a mutant of compute/weat/metrics.py that test_weat_metrics.py and
test_weat_metric_oracles.py let through (issue 50): a setting of ``[weat.metrics]`` (the level,
the permutation count and limit, raw vectors, the number of RNSB splits) not passed on to a
metric, a seed derived from fewer labels than the study's seed, embedding, test set, test and
metric, a row with no result, and RIPA's rows misnamed in the plan.
"""

from __future__ import annotations

import numpy as np
import pytest

from biaswh.compute.weat.ect import embedding_coherence
from biaswh.compute.weat.mac import mean_average_cosine
from biaswh.compute.weat.metrics import MetricSettings, planned_rows, run_metrics
from biaswh.compute.weat.resampling import ResamplingSettings
from biaswh.compute.weat.ripa import relational_inner_product
from biaswh.compute.weat.rnd import relative_norm_distance
from biaswh.compute.weat.rnsb import relative_negative_sentiment
from biaswh.compute.weat.sensitivity import word_set_sensitivity
from biaswh.warehouse.settings.random_seeds import derive_seed
from tests.compute.weat.test_weat_metric_oracles import planted_vectors

ROLES = ("target_x", "target_y", "attribute_a", "attribute_b")
LABELS = {"embedding": "glove", "test_set": "caliskan", "test": "weat3"}


@pytest.fixture(scope="module")
def planted():
    """Equal target sets (pairwise RIPA is defined), raw lengths that differ a lot."""
    vectors = planted_vectors(17, sizes=(4, 4, 5, 4), dimension=6, shift=1.0)
    vectors["target_x"] *= np.random.default_rng(18).uniform(0.3, 4, (4, 1))
    return vectors


def _direct(name: str, role: str, vectors, words, seed: int, settings: MetricSettings, resampling):
    """The one metric call that a (metric, attribute set) row stands for."""
    x, y = vectors["target_x"], vectors["target_y"]
    per_attribute = dict(attribute_set=role, seed=seed, settings=resampling, vectors=settings.vectors)
    if name == "rnd":
        return relative_norm_distance(x, y, vectors[role], **per_attribute)
    if name == "ect":
        return embedding_coherence(x, y, vectors[role], **per_attribute)
    if name in ("ripa", "ripa_pairwise"):
        return relational_inner_product(x, y, vectors[role], variant=settings.ripa, **per_attribute)
    if name == "mac":
        chosen = ("attribute_a", "attribute_b") if role == "both" else (role,)
        return mean_average_cosine(x, y, {r: vectors[r] for r in chosen}, seed=seed, settings=resampling)
    if name == "rnsb":
        args = [vectors[r] for r in ROLES]
        return relative_negative_sentiment(
            *args, seed=seed, vectors=settings.vectors, n_splits=settings.rnsb_splits, settings=resampling
        )
    return word_set_sensitivity(vectors, words, seed=seed, settings=resampling)


@pytest.mark.parametrize("ripa", ["pairwise", "mean_difference"])
def test_each_row_is_its_metric_with_the_studys_settings_and_its_own_seed(planted, ripa):
    words = {role: [f"{role}_{i}" for i in range(len(m))] for role, m in planted.items()}
    # Nothing at its default: a level of 0.9, randomised p's (exact_limit 10) from 1,999 draws, raw vectors, 3 splits.
    settings = MetricSettings(
        vectors="raw", ripa=ripa, rnsb_splits=3, bootstrap_resamples=120, n_permutations=1999, exact_limit=10
    )
    resampling = ResamplingSettings(confidence_level=0.9, bootstrap_resamples=120, exact_limit=10, n_permutations=1999)
    outcomes = run_metrics(planted, words, settings=settings, confidence_level=0.9, study_seed=5, **LABELS)
    assert [(o.metric, o.attribute_set) for o in outcomes] == planned_rows(settings)
    for outcome in outcomes:
        name = "ripa" if outcome.metric.startswith("ripa") else outcome.metric
        assert outcome.seed == derive_seed(5, *LABELS.values(), name), outcome.metric
        assert (outcome.status, outcome.status_reason) == ("computed", None)
        direct = _direct(outcome.metric, outcome.attribute_set, planted, words, outcome.seed, settings, resampling)
        assert outcome.result == direct, (outcome.metric, outcome.attribute_set)
        if outcome.result.p_method is not None:
            assert (outcome.result.p_method, outcome.result.n_permutations) == ("randomised", 1999)
    ripa_rows = {o.metric for o in outcomes if o.metric.startswith("ripa")}
    assert ripa_rows == {"ripa_pairwise" if ripa == "pairwise" else "ripa"}
    assert {o.result.vectors for o in outcomes if o.metric in ("rnd", "ect", "ripa", "ripa_pairwise", "rnsb")} == {
        "raw"
    }
    assert all(o.result.confidence_level == 0.9 for o in outcomes)


def test_the_plan_names_every_row_in_the_order_of_the_metrics_names():
    assert planned_rows(MetricSettings()) == [
        ("rnd", "attribute_a"), ("rnd", "attribute_b"), ("rnsb", "both"), ("mac", "attribute_a"),
        ("mac", "attribute_b"), ("mac", "both"), ("ect", "attribute_a"), ("ect", "attribute_b"),
        ("ripa", "attribute_a"), ("ripa", "attribute_b"), ("d_word_sets", "both"),
    ]  # fmt: skip
    assert planned_rows(MetricSettings(names=("d_word_sets", "ripa"), ripa="pairwise")) == [
        ("d_word_sets", "both"), ("ripa_pairwise", "attribute_a"), ("ripa_pairwise", "attribute_b"),
    ]  # fmt: skip


def test_a_row_that_cannot_be_computed_keeps_its_seed_and_its_reason(planted):
    vectors = {**planted, "target_y": planted["target_y"][:3]}
    words = {role: [f"{role}_{i}" for i in range(len(m))] for role, m in vectors.items()}
    settings = MetricSettings(names=("ripa",), ripa="pairwise", bootstrap_resamples=100)
    outcomes = run_metrics(vectors, words, settings=settings, confidence_level=0.95, study_seed=5, **LABELS)
    assert [(o.metric, o.attribute_set, o.status, o.result) for o in outcomes] == [
        ("ripa_pairwise", "attribute_a", "undefined", None),
        ("ripa_pairwise", "attribute_b", "undefined", None),
    ]
    assert {o.seed for o in outcomes} == {derive_seed(5, *LABELS.values(), "ripa")}
    assert outcomes[0].status_reason == (
        "pairwise RIPA pairs X and Y by list position and needs equal sets, got 4 and 3 words:"
        ' use ripa = "mean_difference" or balance = true'
    )


def test_the_settings_keep_their_names_as_a_tuple_and_accept_each_floor():
    settings = MetricSettings(names=["ripa", "rnd"], vectors="raw", rnsb_splits=2, bootstrap_resamples=100)
    assert settings.names == ("ripa", "rnd") and isinstance(settings.names, tuple)
    assert MetricSettings(n_permutations=999).n_permutations == 999


@pytest.mark.parametrize(
    "options, message",
    [
        ({"names": ("rnd", "ect", "rnd")}, "names: 'rnd' listed twice; name each metric once"),
        ({"names": ("mac", "ect", "mac", "ect")}, "names: 'ect', 'mac' listed twice; name each metric once"),
        (
            {"names": ("rnd", "weat2", "ripa_pairwise")},
            "metrics.names: unknown metric(s) ripa_pairwise, weat2; known: rnd, rnsb, mac, ect, ripa, d_word_sets",
        ),
        ({"vectors": "cosine"}, "metrics.vectors must be 'unit' or 'raw', got 'cosine'"),
        ({"ripa": "paired"}, "metrics.ripa must be 'mean_difference' or 'pairwise', got 'paired'"),
        ({"rnsb_splits": 1}, "metrics: rnsb_splits >= 2, bootstrap_resamples >= 100 and n_permutations >= 999"),
        (
            {"bootstrap_resamples": 99},
            "metrics: rnsb_splits >= 2, bootstrap_resamples >= 100 and n_permutations >= 999",
        ),
        ({"n_permutations": 998}, "metrics: rnsb_splits >= 2, bootstrap_resamples >= 100 and n_permutations >= 999"),
    ],
)
def test_a_bad_setting_is_refused_with_what_it_should_be(options, message):
    with pytest.raises(ValueError) as refused:
        MetricSettings(**options)
    assert str(refused.value) == message
