"""Mean average cosine distance (MAC, Manzini et al. 2019), per target group and as a group difference.

WEFE's MAC is one number, the mean over every target word and every attribute set of the mean
cosine distance (1 - cos) of the word to the set's words: it does not compare the groups. Here,
for one attribute set S, MAC(X, S) and MAC(Y, S) are reported with their difference
MAC(X, S) - MAC(Y, S) (negative: X is closer to S), which has a permutation null; and the
pooled value over both sets (``attribute_set="both"``) equals WEFE's number.
Cosine distance ignores vector length, so there is no ``vectors`` option.
"""

from __future__ import annotations

import numpy as np

from biaswh.compute.weat.association import cosine_matrix
from biaswh.compute.weat.resampling import (
    DEFAULT_RESAMPLING,
    MetricResult,
    ResamplingSettings,
    evaluate,
    shared_fields,
    sign_of,
)

CONVENTION = (
    "mean over target words w of mean over attribute words s of 1 - cos(w, s); value = MAC(X) - MAC(Y)"
    " for one attribute set (negative: X closer), or WEFE's pooled MAC over both sets (no null)"
)


def _difference(x_mean: np.ndarray, y_mean: np.ndarray) -> np.ndarray:
    return (x_mean - y_mean)[:, 0]


def _pooled(n_x: int, n_y: int):
    def kernel(x_mean: np.ndarray, y_mean: np.ndarray) -> np.ndarray:
        return ((n_x * x_mean + n_y * y_mean) / (n_x + n_y))[:, 0]

    return kernel


def mean_average_cosine(
    target_x: np.ndarray,
    target_y: np.ndarray,
    attributes: dict[str, np.ndarray],
    *,
    seed: int,
    settings: ResamplingSettings = DEFAULT_RESAMPLING,
) -> MetricResult:
    """MAC of X and Y against ``attributes`` (role -> vectors): one role gives the group difference,
    two roles (``attribute_a`` and ``attribute_b``) give WEFE's pooled MAC with the per-group values."""
    distance_x = np.column_stack([(1 - cosine_matrix(target_x, s)).mean(axis=1) for s in attributes.values()])
    distance_y = np.column_stack([(1 - cosine_matrix(target_y, s)).mean(axis=1) for s in attributes.values()])
    score_x, score_y = distance_x.mean(axis=1), distance_y.mean(axis=1)
    n_attributes = sum(len(s) for s in attributes.values())
    common = dict(n_target_x=len(score_x), n_target_y=len(score_y), n_attributes=n_attributes)
    if len(attributes) == 1:
        (role,) = attributes
        value, interval, p = evaluate(
            score_x, score_y, _difference, alternative="two-sided", seed=seed, settings=settings
        )
        weat_sign = -sign_of(value) if role == "attribute_a" else sign_of(value)
        direction = f"target_{'x' if value < 0 else 'y'} closer to {role}" if value != 0 else "no difference"
    else:
        role = "both"
        kernel = _pooled(len(score_x), len(score_y))
        value, interval, p = evaluate(score_x, score_y, kernel, alternative=None, seed=seed, settings=settings)
        weat_sign, direction = 0, "no direction (pooled over both groups and both attribute sets)"
    return MetricResult(
        metric="mac",
        attribute_set=role,
        value=value,
        group_x_value=float(score_x.mean()),
        group_y_value=float(score_y.mean()),
        weat_sign=weat_sign,
        direction=direction,
        vectors="unit",
        convention=CONVENTION,
        **shared_fields(interval, p, settings, **common),
    )
