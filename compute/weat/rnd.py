"""Relative norm distance (RND, Garg et al. 2018) of one attribute set between two target groups.

RND(S) = mean over s in S of ( ||s - mean(X)|| - ||s - mean(Y)|| ). Negative: S lies closer to
the centre of X than to that of Y. By default the vectors are unit-normalised first: on raw
word2vec vectors RND follows vector length (frequent words are long), so on WEAT 7 both male
and female terms come out "closer to arts". ``vectors="raw"`` gives WEFE's ``distance="norm"``
number; WEFE's ``distance="cos"`` returns a cosine *similarity*, which reverses the sign, and is
not offered.
"""

from __future__ import annotations

import numpy as np

from biaswh.compute.weat.resampling import (
    DEFAULT_RESAMPLING,
    MetricResult,
    ResamplingSettings,
    VectorNorm,
    evaluate,
    in_shared_span,
    prepare,
    shared_fields,
    sign_of,
)

CONVENTION = (
    "mean over attribute words s of ||s - mean(X)|| - ||s - mean(Y)|| (Euclidean);"
    " negative: the attribute set is closer to X; two-sided permutation p over target partitions"
)


def _rnd_kernel(attribute: np.ndarray) -> callable:
    squared = (attribute**2).sum(axis=1)

    def distances(means: np.ndarray) -> np.ndarray:
        gap = squared[None, :] + (means**2).sum(axis=1)[:, None] - 2 * means @ attribute.T
        return np.sqrt(np.maximum(gap, 0.0))

    def kernel(x_mean: np.ndarray, y_mean: np.ndarray) -> np.ndarray:
        return (distances(x_mean) - distances(y_mean)).mean(axis=1)

    return kernel


def relative_norm_distance(
    target_x: np.ndarray,
    target_y: np.ndarray,
    attribute: np.ndarray,
    *,
    attribute_set: str,
    seed: int,
    vectors: VectorNorm = "unit",
    settings: ResamplingSettings = DEFAULT_RESAMPLING,
) -> MetricResult:
    """RND of ``attribute`` (role ``attribute_set``: attribute_a or attribute_b) between X and Y."""
    x, y, s = in_shared_span(*(prepare(m, vectors) for m in (target_x, target_y, attribute)))
    value, interval, p = evaluate(x, y, _rnd_kernel(s), alternative="two-sided", seed=seed, settings=settings)
    closer = "target_x" if value < 0 else "target_y"
    # X closer to A reads like d > 0; X closer to B like d < 0.
    weat_sign = -sign_of(value) if attribute_set == "attribute_a" else sign_of(value)
    return MetricResult(
        metric="rnd",
        attribute_set=attribute_set,
        value=value,
        group_x_value=None,
        group_y_value=None,
        weat_sign=weat_sign,
        direction=f"{attribute_set} closer to {closer}" if value != 0 else "equidistant",
        vectors=vectors,
        convention=CONVENTION,
        **shared_fields(interval, p, settings, n_target_x=len(x), n_target_y=len(y), n_attributes=len(s)),
    )
