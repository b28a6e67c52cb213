"""Relative negative sentiment bias (RNSB, Sweeney & Najafian 2019), seeded and signed.

A logistic regression learns attribute set B (label -1, WEFE's "negative") against A (+1);
P(B | w) of every target word, normalised over X and Y together, is compared with the uniform
distribution by the KL divergence (0: every target word equally "negative"). The headline value
is fitted on every attribute word (WEFE's ``holdout=False``), so it is deterministic; the spread
WEFE hides behind its unseeded 80/20 split is reported as the interval of KL over
``n_splits`` seeded stratified splits. KL has no sign, so the difference of mean P(B | w)
between X and Y is reported beside it (``group_x_value``, ``group_y_value``) with a two-sided
permutation p; the interval over words resamples the target words with the classifier fixed.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import xlogy

from biaswh.compute.weat.resampling import (
    DEFAULT_RESAMPLING,
    MetricResult,
    ResamplingSettings,
    VectorNorm,
    percentile_interval,
    permutation_p,
    prepare,
    resample_counts,
    shared_fields,
    sign_of,
)

if TYPE_CHECKING:
    from sklearn.linear_model import LogisticRegression

CONVENTION = (
    "KL(P || uniform) of P(B | w) normalised over the target words, logistic regression of B (-1)"
    " against A (+1) on all attribute words; sign from mean P(B | x) - mean P(B | y); p of that gap"
)
REGRESSION = {"solver": "liblinear", "max_iter": 10000}


def _fit(features: np.ndarray, labels: np.ndarray, seed: int) -> LogisticRegression:
    # scikit-learn is imported when RNSB runs: about 0.6 s that no other study pays for.
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(**REGRESSION, random_state=seed).fit(features, labels)


def _split_models(features: np.ndarray, labels: np.ndarray, split_seeds: np.ndarray) -> list[LogisticRegression]:
    """One classifier per seeded stratified 80/20 split of the attribute words.

    The splits are ``train_test_split(..., test_size=0.2, stratify=labels, random_state=seed)``'s, drawn
    by the splitter it calls, and scikit-learn's per-call checks of parameters and finiteness are
    skipped (the inputs are this module's own float arrays): the same models, without the ~40% of an
    RNSB that the checks of its hundred fits took.
    """
    import sklearn
    from sklearn.model_selection import StratifiedShuffleSplit

    n_test = math.ceil(0.2 * len(labels))
    models = []
    with sklearn.config_context(assume_finite=True, skip_parameter_validation=True):
        for split_seed in split_seeds:
            splitter = StratifiedShuffleSplit(
                test_size=n_test, train_size=len(labels) - n_test, random_state=int(split_seed)
            )
            train, _ = next(splitter.split(features, labels))
            models.append(_fit(features[train], labels[train], int(split_seed)))
    return models


def _negative_probability(model: LogisticRegression, words: np.ndarray) -> np.ndarray:
    return model.predict_proba(words)[:, int(np.flatnonzero(model.classes_ == -1)[0])]


def _kl_from_uniform(probabilities: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """KL of the normalised probabilities of a multiset (``counts`` rows of multiplicities) from uniform.

    A word whose P(B | w) is 0 (a far target word of raw vectors: scikit-learn's 1 - expit(d) is 0
    past d = 37) adds 0 (0 log 0 = 0); a resample of only such words has no KL (NaN).
    """
    total = counts @ probabilities
    n = counts.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = probabilities[None, :] / total[:, None]
        return xlogy(counts * share, share * n[:, None]).sum(axis=1)


def relative_negative_sentiment(
    target_x: np.ndarray,
    target_y: np.ndarray,
    attribute_a: np.ndarray,
    attribute_b: np.ndarray,
    *,
    seed: int,
    vectors: VectorNorm = "unit",
    n_splits: int = 200,
    settings: ResamplingSettings = DEFAULT_RESAMPLING,
) -> MetricResult:
    """RNSB of X and Y with A and B as the classifier's classes (see the module docstring)."""
    x, y, a, b = (prepare(m, vectors) for m in (target_x, target_y, attribute_a, attribute_b))
    features = np.concatenate([a, b])
    labels = np.concatenate([np.ones(len(a)), -np.ones(len(b))])
    targets = np.concatenate([x, y])
    # scikit-learn takes 32-bit seeds; the derived seeds have 63 bits.
    classifier_seed = int(np.random.SeedSequence([seed, 0]).generate_state(1)[0])
    model = _fit(features, labels, classifier_seed)
    probability = _negative_probability(model, targets)
    value = float(_kl_from_uniform(probability, np.ones((1, len(probability))))[0])
    rng = np.random.default_rng(np.random.SeedSequence([seed, 1]))
    counts = np.hstack(
        [
            resample_counts(rng, len(x), settings.bootstrap_resamples),
            resample_counts(rng, len(y), settings.bootstrap_resamples),
        ]
    )
    interval = percentile_interval(_kl_from_uniform(probability, counts), settings.confidence_level)
    split_values = [
        _kl_from_uniform(_negative_probability(split_model, targets), np.ones((1, len(targets))))[0]
        for split_model in _split_models(features, labels, np.random.SeedSequence([seed, 3]).generate_state(n_splits))
    ]
    spread = percentile_interval(np.array(split_values), settings.confidence_level)
    p_x, p_y = probability[: len(x)], probability[len(x) :]
    p = permutation_p(
        p_x,
        p_y,
        lambda xm, ym: (xm - ym)[:, 0],
        alternative="two-sided",
        seed=np.random.SeedSequence([seed, 2]),
        exact_limit=settings.exact_limit,
        n_permutations=settings.n_permutations,
    )
    gap = float(p_x.mean() - p_y.mean())
    return MetricResult(
        metric="rnsb",
        attribute_set="both",
        value=value,
        group_x_value=float(p_x.mean()),
        group_y_value=float(p_y.mean()),
        weat_sign=-sign_of(gap),  # X more likely "B" than Y is reads like d < 0
        direction=f"target_{'x' if gap > 0 else 'y'} more often classed attribute_b" if gap != 0 else "no difference",
        vectors=vectors,
        convention=CONVENTION,
        spread_low=spread[0],
        spread_high=spread[1],
        spread_method=f"percentile interval of KL over {n_splits} seeded stratified 80/20 splits of A and B",
        details={
            "regression": {"estimator": "LogisticRegression", **REGRESSION, "random_state": classifier_seed},
            "label_attribute_a": 1,
            "label_attribute_b": -1,
            "training_accuracy": float(model.score(features, labels)),
            "probability_gap_x_minus_y": gap,
        },
        **shared_fields(
            interval,
            p,
            settings,
            n_target_x=len(x),
            n_target_y=len(y),
            n_attributes=len(a) + len(b),
            ci_method="percentile bootstrap of KL over the target words of X and of Y (classifier fixed)",
        ),
    )
