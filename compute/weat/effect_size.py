"""The WEAT effect size d and test statistic s(X, Y, A, B)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

EFFECT_SIZE_SD = "sample SD (ddof=1) of s(w, A, B) over all target words X ∪ Y (Caliskan et al. 2017)"


@dataclass(frozen=True)
class EffectSize:
    """d = (mean s(x) - mean s(y)) / SD, with the statistic s(X, Y, A, B) = sum s(x) - sum s(y).

    With the sample SD, |d| cannot exceed 2 * sqrt((N - 1) / N) for N = |X| + |Y| equal halves
    (1.936 for 8 + 8), so intervals of d near that bound are short on the upper side. WEFE divides
    by the population SD (ddof=0): its d is ours times sqrt(N / (N - 1)).
    """

    effect_size: float
    test_statistic: float
    mean_x: float
    mean_y: float
    sd: float
    n_x: int
    n_y: int
    sd_definition: str = EFFECT_SIZE_SD


def _effect_size_kernel(s_x: np.ndarray, s_y: np.ndarray, axis: int = -1) -> np.ndarray:
    """d along ``axis`` (vectorised for the bootstrap)."""
    pooled = np.concatenate([s_x, s_y], axis=axis)
    return (s_x.mean(axis=axis) - s_y.mean(axis=axis)) / pooled.std(axis=axis, ddof=1)


def weat_effect_size(s_x: np.ndarray, s_y: np.ndarray) -> EffectSize:
    """Effect size of the association scores of targets X and Y.

    Raises
    ------
    ValueError
        With fewer than 2 target words, or when every score is equal (SD 0: d is undefined).
    """
    s_x, s_y = np.asarray(s_x, dtype=np.float64), np.asarray(s_y, dtype=np.float64)
    if len(s_x) < 1 or len(s_y) < 1 or len(s_x) + len(s_y) < 3:
        raise ValueError(f"need words in both target sets and at least 3 in all, got {len(s_x)} and {len(s_y)}")
    sd = float(np.concatenate([s_x, s_y]).std(ddof=1))
    if sd == 0.0:
        raise ValueError("every target word has the same association score: the SD is 0 and d is undefined")
    return EffectSize(
        effect_size=float(_effect_size_kernel(s_x, s_y)),
        test_statistic=float(s_x.sum() - s_y.sum()),
        mean_x=float(s_x.mean()),
        mean_y=float(s_y.mean()),
        sd=sd,
        n_x=len(s_x),
        n_y=len(s_y),
    )
