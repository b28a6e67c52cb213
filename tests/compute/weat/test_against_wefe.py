"""Our embedding metrics against WEFE 1.0.1 on the shared word2vec subset (the words our job uses).

Where WEFE is deterministic (WEAT d with ddof 0, RND, MAC, ECT, RIPA on equal lists, RNSB with
``holdout=False`` and liblinear) our numbers in WEFE's convention (raw vectors, pairwise RIPA)
equal WEFE's within 1e-6; both run in float64. Where ours differs on purpose, both are shown.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from biaswh.compute.weat.association import word_associations
from biaswh.compute.weat.coverage import Vocabulary, match_words
from biaswh.compute.weat.ect import embedding_coherence
from biaswh.compute.weat.effect_size import weat_effect_size
from biaswh.compute.weat.mac import mean_average_cosine
from biaswh.compute.weat.resampling import ResamplingSettings
from biaswh.compute.weat.ripa import relational_inner_product
from biaswh.compute.weat.rnd import relative_norm_distance
from biaswh.compute.weat.rnsb import relative_negative_sentiment
from biaswh.ingest.weat.weat_tests import builtin_path, parse_weat_tests
from tests.conftest import shared_file

pytest.importorskip("wefe")
from gensim.models import KeyedVectors  # noqa: E402
from wefe.metrics import ECT, MAC, RIPA, RND, RNSB, WEAT  # noqa: E402
from wefe.query import Query  # noqa: E402
from wefe.word_embedding_model import WordEmbeddingModel  # noqa: E402

pytestmark = pytest.mark.real_data
ROLES = ("target_x", "target_y", "attribute_a", "attribute_b")
QUICK = ResamplingSettings(bootstrap_resamples=100, n_permutations=999, exact_limit=1000)
TESTS = [f"weat{i}" for i in range(1, 11)]


@pytest.fixture(scope="module")
def embedding():
    """The shared vectors as a float64 gensim model for WEFE, and our vocabulary of the same words."""
    data = np.load(shared_file("weat/word2vec_gnews_subset_13013x300.npz"))
    words, vectors = list(data["words"]), data["vectors"].astype(np.float64)
    keyed = KeyedVectors(vectors.shape[1], dtype=np.float64)
    keyed.add_vectors(words, vectors)
    return WordEmbeddingModel(keyed, "word2vec_gnews_subset"), Vocabulary(words), vectors


@pytest.fixture(scope="module")
def word_sets(embedding):
    """Per classic test: the words our job uses (exact match, repeats dropped), in listed order."""
    _, vocabulary, _ = embedding
    name, records = parse_weat_tests(builtin_path("builtin:caliskan2017"))
    sets = {}
    for test in TESTS:
        matches = match_words([r for r in records if r["test"] == test], vocabulary, "exact")
        sets[test] = {role: [m.matched_word for m in matches if m.set_role == role and m.used] for role in ROLES}
    return sets


def _vectors(embedding, words):
    _, vocabulary, vectors = embedding
    return vectors[[vocabulary.index[w] for w in words]]


def _ours(embedding, sets):
    return {role: _vectors(embedding, sets[role]) for role in ROLES}


def _queries(sets):
    targets = [sets["target_x"], sets["target_y"]]
    return Query(targets, [sets["attribute_a"], sets["attribute_b"]]), Query(targets, [sets["attribute_a"]])


@pytest.mark.parametrize("test", TESTS)
def test_wefe_deterministic_metrics_equal_ours_in_wefes_convention(embedding, word_sets, test):
    model = embedding[0]
    sets = word_sets[test]
    v = _ours(embedding, sets)
    both, one = _queries(sets)
    n = len(v["target_x"]) + len(v["target_y"])
    effect = weat_effect_size(
        word_associations(v["target_x"], v["attribute_a"], v["attribute_b"]),
        word_associations(v["target_y"], v["attribute_a"], v["attribute_b"]),
    )
    wefe_d = WEAT().run_query(both, model, return_effect_size=True)["effect_size"]
    assert effect.effect_size * math.sqrt(n / (n - 1)) == pytest.approx(wefe_d, abs=1e-6)
    x, y, a, b = (v[r] for r in ROLES)
    rnd = relative_norm_distance(x, y, a, attribute_set="attribute_a", seed=1, vectors="raw", settings=QUICK)
    assert rnd.value == pytest.approx(RND().run_query(one, model)["rnd"], abs=1e-6)
    ect = embedding_coherence(x, y, a, attribute_set="attribute_a", seed=1, vectors="raw", settings=QUICK)
    assert ect.value == pytest.approx(ECT().run_query(one, model)["ect"], abs=1e-6)
    mac = mean_average_cosine(x, y, {"attribute_a": a, "attribute_b": b}, seed=1, settings=QUICK)
    assert mac.value == pytest.approx(MAC().run_query(both, model)["mac"], abs=1e-6)
    rnsb = relative_negative_sentiment(x, y, a, b, seed=7, vectors="raw", n_splits=2, settings=QUICK)
    # A fresh estimator_params dict: WEFE writes random_state into its shared default otherwise.
    wefe_rnsb = RNSB().run_query(
        both,
        model,
        holdout=False,
        random_state=rnsb.details["regression"]["random_state"],
        estimator_params={"solver": "liblinear", "max_iter": 10000},
    )
    assert rnsb.value == pytest.approx(wefe_rnsb["rnsb"], abs=1e-6)
    if len(x) == len(y):
        ripa = relational_inner_product(
            x, y, a, attribute_set="attribute_a", seed=1, vectors="raw", variant="pairwise", settings=QUICK
        )
        assert ripa.value == pytest.approx(RIPA().run_query(one, model)["ripa"], abs=1e-6)


def test_wefe_ripa_depends_on_list_order_ours_does_not(embedding, word_sets):
    model = embedding[0]
    sets = word_sets["weat1"]
    reordered = {**sets, "target_y": sets["target_y"][::-1]}
    wefe = [RIPA().run_query(_queries(s)[1], model)["ripa"] for s in (sets, reordered)]
    assert abs(wefe[0] - wefe[1]) > 1e-4, wefe  # 0.0888 vs 0.0880 on WEAT 1
    ours = [
        relational_inner_product(
            *(_ours(embedding, s)[r] for r in ("target_x", "target_y", "attribute_a")),
            attribute_set="attribute_a",
            seed=1,
            settings=QUICK,
        ).value
        for s in (sets, reordered)
    ]
    assert ours[0] == pytest.approx(ours[1], abs=1e-12)


def test_pairwise_ripa_refuses_unequal_sets_where_wefe_drops_or_fails(embedding, word_sets):
    sets = word_sets["weat2"]  # 25 instruments vs 25 weapons listed; one is missing from the subset
    v = _ours(embedding, sets)
    assert len(v["target_x"]) != len(v["target_y"])
    with pytest.raises(ValueError, match="needs equal sets"):
        relational_inner_product(
            v["target_x"], v["target_y"], v["attribute_a"], attribute_set="attribute_a", seed=1, variant="pairwise"
        )
    unpaired = relational_inner_product(
        v["target_x"], v["target_y"], v["attribute_a"], attribute_set="attribute_a", seed=1, settings=QUICK
    )
    assert np.isfinite(unpaired.value)


def test_rnd_on_unit_vectors_differs_from_wefes_raw_vectors_and_cos_reverses_the_sign(embedding, word_sets):
    """Raw word2vec lengths track frequency: RND on raw vectors (WEFE's default) is not RND on directions."""
    model = embedding[0]
    sets = word_sets["weat7"]
    v = _ours(embedding, sets)
    one = _queries(sets)[1]
    raw = RND().run_query(one, model)["rnd"]
    unit = relative_norm_distance(
        v["target_x"], v["target_y"], v["attribute_a"], attribute_set="attribute_a", seed=1, settings=QUICK
    ).value
    normalised = RND().run_query(one, model, normalize=True)["rnd"]
    print(
        f"WEAT 7 RND of the male terms (A): WEFE raw {raw:.4f}, ours (unit) {unit:.4f}, WEFE normalize {normalised:.4f}"
    )
    assert unit == pytest.approx(normalised, abs=1e-6)  # WEFE's normalize=True is our default
    assert abs(unit - raw) > 1e-3
    # WEFE's distance="cos" subtracts cosine *similarities*: a word closer to X gets a positive value.
    cosine = RND().run_query(one, model, distance="cos")["rnd"]
    assert np.sign(cosine) == -np.sign(unit), (cosine, unit)


def test_wefes_word_lists_load_as_a_named_test_set_and_move_d_more_than_the_sd_does(embedding):
    """builtin:wefe_weat holds WEFE's lists; d (in WEFE's ddof-0 convention) for WEAT 4, 5, 9, 10 moves
    to 1.33, 0.73, 1.35, -0.20, more than the SD convention moves any d (Antoniak & Mimno 2021)."""
    from biaswh.compute.weat.runner import WeatSettings, run_weat_test

    _, vocabulary, vectors = embedding
    settings = WeatSettings(bootstrap_resamples=100, exact_limit=1000)
    d = {}
    for source in ("caliskan2017", "wefe_weat"):
        name, records = parse_weat_tests(builtin_path(f"builtin:{source}"))
        for test in ("weat4", "weat5", "weat9", "weat10"):
            result = run_weat_test(
                [r for r in records if r["test"] == test],
                embedding="w2v",
                test_set=name,
                test=test,
                vocabulary=vocabulary,
                vectors=vectors,
                settings=settings,
                study_seed=1,
            )
            n = result.n_target_x + result.n_target_y
            d[source, test] = (result.effect_size, result.effect_size * math.sqrt(n / (n - 1)))
    print({k: round(v[1], 3) for k, v in d.items()})
    wefe_lists = [round(d["wefe_weat", t][1], 2) for t in ("weat4", "weat5", "weat9", "weat10")]
    assert wefe_lists == [1.33, 0.73, 1.35, -0.20]
    for test in ("weat4", "weat5", "weat9", "weat10"):
        by_lists = abs(d["wefe_weat", test][0] - d["caliskan2017", test][0])
        by_sd = abs(d["caliskan2017", test][1] - d["caliskan2017", test][0])
        assert by_lists > by_sd, test
