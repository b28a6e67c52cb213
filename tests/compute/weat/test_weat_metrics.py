"""RND, RNSB, MAC, ECT, RIPA and word-set sensitivity on small planted vectors, against direct computation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from biaswh.compute.weat.ect import embedding_coherence
from biaswh.compute.weat.mac import mean_average_cosine
from biaswh.compute.weat.metrics import MetricSettings, planned_rows, run_metrics
from biaswh.compute.weat.resampling import ResamplingSettings, in_shared_span, permutation_p
from biaswh.compute.weat.ripa import relational_inner_product
from biaswh.compute.weat.rnd import relative_norm_distance
from biaswh.compute.weat.rnsb import relative_negative_sentiment
from biaswh.compute.weat.sensitivity import word_set_sensitivity

QUICK = ResamplingSettings(bootstrap_resamples=300, n_permutations=999, exact_limit=20_000)


@pytest.fixture(scope="module")
def planted():
    """X leans towards A (dimension 0), Y towards B (dimension 1); raw lengths vary a lot."""
    rng = np.random.default_rng(3)
    x, y, a, b = (rng.normal(0, 0.5, (n, 12)) for n in (7, 6, 8, 9))
    x[:, 0] += 2
    a[:, 0] += 2
    y[:, 1] += 2
    b[:, 1] += 2
    x *= rng.uniform(0.2, 5, (7, 1))
    return {"target_x": x, "target_y": y, "attribute_a": a, "attribute_b": b}


def _unit(m):
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_rnd_is_the_mean_distance_gap_on_unit_vectors_and_says_which_group_is_closer(planted):
    x, y, a = _unit(planted["target_x"]), _unit(planted["target_y"]), _unit(planted["attribute_a"])
    expected = np.mean([np.linalg.norm(s - x.mean(0)) - np.linalg.norm(s - y.mean(0)) for s in a])
    result = relative_norm_distance(
        planted["target_x"],
        planted["target_y"],
        planted["attribute_a"],
        attribute_set="attribute_a",
        seed=1,
        settings=QUICK,
    )
    assert result.value == pytest.approx(expected, abs=1e-12) and result.value < 0
    assert result.direction == "attribute_a closer to target_x" and result.weat_sign == 1
    assert result.p_method == "exact" and result.n_permutations == 1716  # C(13, 7)
    assert result.p_value < 0.01 and result.ci_low <= result.value <= result.ci_high
    raw = relative_norm_distance(
        planted["target_x"],
        planted["target_y"],
        planted["attribute_a"],
        attribute_set="attribute_a",
        seed=1,
        vectors="raw",
        settings=QUICK,
    )
    assert abs(raw.value - result.value) > 0.1 and raw.vectors == "raw"


def test_exact_permutation_p_equals_scipys_two_sided_enumeration():
    rng = np.random.default_rng(5)
    scores_x, scores_y = rng.normal(0.4, 1, 6), rng.normal(0, 1, 7)
    ours = permutation_p(
        scores_x,
        scores_y,
        lambda xm, ym: (xm - ym)[:, 0],
        alternative="two-sided",
        seed=1,
        exact_limit=10_000,
        n_permutations=999,
    )
    # Two-sided as |statistic| >= |observed| (scipy's "two-sided" doubles the smaller tail instead).
    reference = stats.permutation_test(
        (scores_x, scores_y),
        lambda u, v, axis: np.abs(u.mean(axis=axis) - v.mean(axis=axis)),
        permutation_type="independent",
        alternative="greater",
        n_resamples=np.inf,
        vectorized=True,
    )
    assert ours.method == "exact" and ours.p_value == pytest.approx(reference.pvalue, rel=1e-12)
    randomised = permutation_p(
        scores_x,
        scores_y,
        lambda xm, ym: (xm - ym)[:, 0],
        alternative="two-sided",
        seed=1,
        exact_limit=100,
        n_permutations=999,
    )
    assert randomised.method == "randomised" and randomised.p_value == pytest.approx(ours.p_value, abs=0.05)
    assert (randomised.p_value * 1000) == pytest.approx(round(randomised.p_value * 1000))  # (k + 1) / (B + 1)


def test_exact_partitions_kept_for_the_next_metric_give_the_streamed_p(monkeypatch):
    from biaswh.compute.weat import resampling

    rng = np.random.default_rng(9)
    samples = [(rng.normal(0.5, 1, 7), rng.normal(0, 1, 7)) for _ in range(3)]

    def exact_p(scores_x, scores_y):
        return permutation_p(
            scores_x,
            scores_y,
            lambda xm, ym: (xm - ym)[:, 0],
            alternative="greater",
            seed=1,
            exact_limit=10_000,
            n_permutations=999,
        )

    resampling._kept_membership_chunks.cache_clear()
    kept = [exact_p(*pair) for pair in samples]  # the same 3,432 partitions, three sets of scores
    assert resampling._kept_membership_chunks.cache_info().hits == 2
    monkeypatch.setattr(resampling, "_KEPT_BYTES", 0)
    streamed = [exact_p(*pair) for pair in samples]
    assert resampling._kept_membership_chunks.cache_info().hits == 2
    assert [r.p_value for r in kept] == [r.p_value for r in streamed]
    assert all(r.method == "exact" and r.n_permutations == 3432 for r in kept)
    for (scores_x, scores_y), result in zip(samples, kept):
        reference = stats.permutation_test(
            (scores_x, scores_y),
            lambda u, v, axis: u.mean(axis=axis) - v.mean(axis=axis),
            permutation_type="independent",
            alternative="greater",
            n_resamples=np.inf,
            vectorized=True,
        )
        assert result.p_value == pytest.approx(reference.pvalue, rel=1e-12)
    assert len({r.p_value for r in kept}) == 3


def test_mac_reports_each_group_and_their_difference_and_pools_like_wefe(planted):
    x, y, a, b = (planted[r] for r in ("target_x", "target_y", "attribute_a", "attribute_b"))
    one = mean_average_cosine(x, y, {"attribute_a": a}, seed=1, settings=QUICK)
    distance = lambda t, s: (1 - _unit(t) @ _unit(s).T).mean(axis=1)  # noqa: E731
    assert one.group_x_value == pytest.approx(distance(x, a).mean()) and one.group_y_value == pytest.approx(
        distance(y, a).mean()
    )
    assert one.value == pytest.approx(one.group_x_value - one.group_y_value) and one.weat_sign == 1
    pooled = mean_average_cosine(x, y, {"attribute_a": a, "attribute_b": b}, seed=1, settings=QUICK)
    every = np.concatenate([distance(x, a), distance(x, b), distance(y, a), distance(y, b)])
    assert pooled.attribute_set == "both" and pooled.value == pytest.approx(every.mean())
    assert pooled.p_value is None and pooled.weat_sign == 0


def test_ect_is_spearmans_rho_of_the_mean_cosines_with_a_one_sided_permutation_p(planted):
    x, y, a = (_unit(planted[r]) for r in ("target_x", "target_y", "attribute_a"))
    cos = lambda m: a @ m / (np.linalg.norm(a, axis=1) * np.linalg.norm(m))  # noqa: E731
    rho = stats.spearmanr(cos(x.mean(0)), cos(y.mean(0))).statistic
    result = embedding_coherence(x, y, a, attribute_set="attribute_a", seed=1, settings=QUICK)
    assert result.value == pytest.approx(rho, abs=1e-12) and result.p_alternative == "less"
    assert 0 < result.p_value <= 1 and "spearman_p_rho_zero" in result.details


def test_ripa_is_order_independent_and_pairwise_refuses_unequal_sets(planted):
    x, y, a = planted["target_x"], planted["target_y"], planted["attribute_a"]
    forward = relational_inner_product(x, y, a, attribute_set="attribute_a", seed=1, settings=QUICK)
    backward = relational_inner_product(x[::-1], y[::-1], a, attribute_set="attribute_a", seed=1, settings=QUICK)
    assert forward.value == pytest.approx(backward.value, abs=1e-12) and forward.value > 0 and forward.weat_sign == 1
    with pytest.raises(
        ValueError, match="pairwise RIPA pairs X and Y by list position and needs equal sets, got 7 and 6"
    ):
        relational_inner_product(x, y, a, attribute_set="attribute_a", seed=1, variant="pairwise")
    paired = relational_inner_product(
        x[:6], y, a, attribute_set="attribute_a", seed=1, variant="pairwise", settings=QUICK
    )
    assert paired.metric == "ripa_pairwise" and paired.p_method == "exact" and paired.n_permutations == 64


def test_rnsb_is_seeded_signed_and_reports_its_split_spread(planted):
    args = [planted[r] for r in ("target_x", "target_y", "attribute_a", "attribute_b")]
    seed = 7426154201179888345  # a derived seed has 63 bits; scikit-learn takes 32
    first = relative_negative_sentiment(*args, seed=seed, n_splits=30, settings=QUICK)
    again = relative_negative_sentiment(*args, seed=seed, n_splits=30, settings=QUICK)
    assert first == again
    probabilities = np.array([first.group_x_value] * 7 + [first.group_y_value] * 6)
    assert first.value >= 0 and first.group_x_value < first.group_y_value  # X is classed A, Y is classed B
    assert first.weat_sign == 1 and first.direction == "target_y more often classed attribute_b"
    assert first.spread_low <= first.spread_high and "30 seeded" in first.spread_method
    assert first.details["regression"] == {
        "estimator": "LogisticRegression",
        "solver": "liblinear",
        "max_iter": 10000,
        "random_state": int(np.random.SeedSequence([seed, 0]).generate_state(1)[0]),
    }
    assert stats.entropy(probabilities / probabilities.sum(), np.full(13, 1 / 13)) <= first.value + 1e-12


def test_word_set_sensitivity_leaves_out_each_word_and_names_the_most_influential(planted):
    words = {role: [f"{role}_{i}" for i in range(len(m))] for role, m in planted.items()}
    result = word_set_sensitivity(planted, words, seed=2, settings=QUICK)
    assert result.value > 1 and result.ci_low < result.value
    top = result.details["most_influential"][0]
    role, index = top["set_role"], words[top["set_role"]].index(top["word"])
    fewer = {r: (np.delete(m, index, axis=0) if r == role else m) for r, m in planted.items()}
    fewer_words = {r: [w for w in ws if w != top["word"]] for r, ws in words.items()}
    assert word_set_sensitivity(fewer, fewer_words, seed=2, settings=QUICK).value == pytest.approx(top["d_without"])
    assert result.spread_low <= top["d_without"] <= result.spread_high


def test_run_metrics_gives_the_planned_rows_with_raw_p_values(planted):
    words = {role: [f"{role}_{i}" for i in range(len(m))] for role, m in planted.items()}
    settings = MetricSettings(bootstrap_resamples=200, rnsb_splits=5, ripa="pairwise")
    outcomes = run_metrics(
        planted, words, embedding="e", test_set="s", test="t", settings=settings, confidence_level=0.9, study_seed=1
    )
    assert sorted((o.metric, o.attribute_set) for o in outcomes) == sorted(planned_rows(settings))
    assert len(outcomes) == 11  # RND, ECT, RIPA x 2 attribute sets, MAC x 3, RNSB, d_word_sets
    ripa = [o for o in outcomes if o.metric == "ripa_pairwise"]
    assert {o.status for o in ripa} == {"undefined"} and "needs equal sets" in ripa[0].status_reason
    assert {o.status for o in outcomes if o.metric != "ripa_pairwise"} == {"computed"}
    # the job stores raw p only: the weat_report step judges them (tests/analysis/weat/test_weat_metric_verdicts.py)
    rnd = next(o for o in outcomes if o.metric == "rnd" and o.attribute_set == "attribute_a")
    assert rnd.result.p_value == relative_norm_distance(
        planted["target_x"], planted["target_y"], planted["attribute_a"], attribute_set="attribute_a",
        seed=rnd.seed, settings=ResamplingSettings(0.9, 200),
    ).p_value  # fmt: skip
    assert not hasattr(rnd, "p_holm")


def test_unknown_metric_names_are_refused():
    with pytest.raises(ValueError, match="unknown metric"):
        MetricSettings(names=("rnd", "weat2"))


def test_the_shared_span_keeps_every_inner_product_in_as_many_dimensions_as_rows():
    rng = np.random.default_rng(3)
    x, y, s = rng.normal(size=(5, 384)), rng.normal(size=(4, 384)), rng.normal(size=(6, 384))
    px, py, ps = in_shared_span(x, y, s)
    assert px.shape == (5, 15) and py.shape == (4, 15) and ps.shape == (6, 15)
    before, after = np.concatenate([x, y, s]), np.concatenate([px, py, ps])
    np.testing.assert_allclose(after @ after.T, before @ before.T, rtol=0, atol=1e-10)
    means = np.stack([x.mean(axis=0), y.mean(axis=0)])
    projected_means = np.stack([px.mean(axis=0), py.mean(axis=0)])
    np.testing.assert_allclose(projected_means @ ps.T, means @ s.T, rtol=0, atol=1e-12)
    # More rows than dimensions: nothing to gain, the matrices come back as they were.
    first, second = rng.normal(size=(10, 8)), rng.normal(size=(10, 8))
    assert all(kept is given for kept, given in zip(in_shared_span(first, second), (first, second)))
