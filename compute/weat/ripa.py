"""Relational inner product association (RIPA, Ethayarajh et al. 2019) for unpaired target sets.

RIPA(S) = mean over s in S of s . b, with the relation vector b = (mean(X) - mean(Y)) / ||...||:
positive when S leans towards X. It is defined for sets of any sizes and does not depend on the
order of the listed words. WEFE's version (``variant="pairwise"``) pairs X and Y by list
position, b_i = (x_i - y_i) / ||x_i - y_i||, and averages s . b_i: it depends on the order, and
needs equal sets; here it refuses unequal sets instead of raising IndexError or dropping a word.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from biaswh.compute.weat.resampling import (
    DEFAULT_RESAMPLING,
    MetricResult,
    PermutationP,
    ResamplingSettings,
    VectorNorm,
    evaluate,
    in_shared_span,
    percentile_interval,
    prepare,
    resample_counts,
    shared_fields,
    sign_of,
)

RipaVariant = Literal["mean_difference", "pairwise"]
CONVENTION = {
    "mean_difference": "mean over attribute words s of s . b, b = unit(mean(X) - mean(Y)); positive: the"
    " attribute set leans towards X; two-sided permutation p over target partitions",
    "pairwise": "WEFE's pairwise RIPA: mean over list-position pairs i and attribute words s of"
    " s . unit(x_i - y_i); two-sided sign-flip p over the pairs",
}


def _mean_difference_kernel(attribute: np.ndarray):
    def kernel(x_mean: np.ndarray, y_mean: np.ndarray) -> np.ndarray:
        relation = x_mean - y_mean
        with np.errstate(divide="ignore", invalid="ignore"):
            relation = relation / np.linalg.norm(relation, axis=1, keepdims=True)
        return (relation @ attribute.T).mean(axis=1)

    return kernel


def _sign_flip_p(scores: np.ndarray, rng: np.random.Generator, settings: ResamplingSettings) -> PermutationP:
    """Two-sided p of mean(scores) when each pair's order (the sign of its score) is exchangeable."""
    n, observed = len(scores), abs(scores.mean())
    tolerance = max(observed, 1.0) * np.finfo(np.float64).eps * 1000
    if 2**n <= settings.exact_limit:
        signs = 1 - 2 * ((np.arange(2**n)[:, None] >> np.arange(n)) & 1)
        count = int(np.count_nonzero(np.abs(signs @ scores / n) >= observed - tolerance))
        return PermutationP(count / 2**n, "exact", 2**n, "two-sided")
    signs = rng.choice([-1.0, 1.0], size=(settings.n_permutations, n))
    count = int(np.count_nonzero(np.abs(signs @ scores / n) >= observed - tolerance))
    return PermutationP((count + 1) / (settings.n_permutations + 1), "randomised", settings.n_permutations, "two-sided")


def _pairwise(x: np.ndarray, y: np.ndarray, s: np.ndarray, seed: int, settings: ResamplingSettings):
    if len(x) != len(y):
        raise ValueError(
            f"pairwise RIPA pairs X and Y by list position and needs equal sets, got {len(x)} and {len(y)}"
            ' words: use ripa = "mean_difference" or balance = true'
        )
    relations = x - y
    relations = relations / np.linalg.norm(relations, axis=1, keepdims=True)
    pair_scores = (relations @ s.T).mean(axis=1)
    rng = np.random.default_rng(seed)
    counts = resample_counts(rng, len(pair_scores), settings.bootstrap_resamples)
    interval = percentile_interval(counts @ pair_scores / len(pair_scores), settings.confidence_level)
    return float(pair_scores.mean()), interval, _sign_flip_p(pair_scores, rng, settings)


def relational_inner_product(
    target_x: np.ndarray,
    target_y: np.ndarray,
    attribute: np.ndarray,
    *,
    attribute_set: str,
    seed: int,
    vectors: VectorNorm = "unit",
    variant: RipaVariant = "mean_difference",
    settings: ResamplingSettings = DEFAULT_RESAMPLING,
) -> MetricResult:
    """RIPA of one attribute set along the X - Y relation (``variant`` as in the module docstring)."""
    x, y, s = in_shared_span(*(prepare(m, vectors) for m in (target_x, target_y, attribute)))
    ci_method = "percentile bootstrap over the target words of X and of Y (attribute sets fixed)"
    if variant == "mean_difference":
        kernel = _mean_difference_kernel(s)
        value, interval, p = evaluate(x, y, kernel, alternative="two-sided", seed=seed, settings=settings)
    elif variant == "pairwise":
        value, interval, p = _pairwise(x, y, s, seed, settings)
        ci_method = "percentile bootstrap over the (x_i, y_i) pairs"
    else:
        raise ValueError(f"ripa must be 'mean_difference' or 'pairwise', got {variant!r}")
    towards = "target_x" if value > 0 else "target_y"
    return MetricResult(
        metric="ripa" if variant == "mean_difference" else "ripa_pairwise",
        attribute_set=attribute_set,
        value=value,
        group_x_value=None,
        group_y_value=None,
        weat_sign=sign_of(value) if attribute_set == "attribute_a" else -sign_of(value),
        direction=f"{attribute_set} leans towards {towards}" if value != 0 else "no lean",
        vectors=vectors,
        convention=CONVENTION[variant],
        **shared_fields(
            interval, p, settings, n_target_x=len(x), n_target_y=len(y), n_attributes=len(s), ci_method=ci_method
        ),
    )
