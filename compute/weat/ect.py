"""Embedding coherence test (ECT, Dev & Phillips 2019): do the two target means rank the attribute words alike?

ECT = Spearman's rho between cos(mean(X), s) and cos(mean(Y), s) over the attribute words s
(1: the groups see the attributes alike, no bias). It ignores how *far apart* the similarities
are (only their ranks count), so it is reported beside, never instead of, d. Its p-value is a
one-sided permutation p (H1: X and Y are less coherent than random partitions of their words
are), and scipy's p for rho = 0 is kept in ``details`` (it tests correlation, not bias).
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
)
from biaswh.warehouse.deferred_modules import scipy_stats as stats

CONVENTION = (
    "Spearman rho between cos(mean(X), s) and cos(mean(Y), s) over attribute words s; 1 = no bias;"
    " one-sided permutation p (less coherent than random partitions)"
)


def _rowwise_spearman(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    ranks_left = stats.rankdata(left, axis=1)
    ranks_right = stats.rankdata(right, axis=1)
    ranks_left -= ranks_left.mean(axis=1, keepdims=True)
    ranks_right -= ranks_right.mean(axis=1, keepdims=True)
    scale = np.sqrt((ranks_left**2).sum(axis=1) * (ranks_right**2).sum(axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return (ranks_left * ranks_right).sum(axis=1) / scale


def _ect_kernel(attribute: np.ndarray):
    unit_attribute = attribute / np.linalg.norm(attribute, axis=1, keepdims=True)

    def cosines(means: np.ndarray) -> np.ndarray:
        return (means @ unit_attribute.T) / np.linalg.norm(means, axis=1, keepdims=True)

    def kernel(x_mean: np.ndarray, y_mean: np.ndarray) -> np.ndarray:
        return _rowwise_spearman(cosines(x_mean), cosines(y_mean))

    return kernel


def embedding_coherence(
    target_x: np.ndarray,
    target_y: np.ndarray,
    attribute: np.ndarray,
    *,
    attribute_set: str,
    seed: int,
    vectors: VectorNorm = "unit",
    settings: ResamplingSettings = DEFAULT_RESAMPLING,
) -> MetricResult:
    """ECT of X and Y over the words of one attribute set (needs at least 3 attribute words)."""
    if len(attribute) < 3:
        raise ValueError(f"ECT needs at least 3 attribute words to rank, got {len(attribute)}")
    x, y, s = in_shared_span(*(prepare(m, vectors) for m in (target_x, target_y, attribute)))
    kernel = _ect_kernel(s)
    value, interval, p = evaluate(x, y, kernel, alternative="less", seed=seed, settings=settings)
    similarity_x = s @ x.mean(axis=0) / (np.linalg.norm(s, axis=1) * np.linalg.norm(x.mean(axis=0)))
    similarity_y = s @ y.mean(axis=0) / (np.linalg.norm(s, axis=1) * np.linalg.norm(y.mean(axis=0)))
    spearman_p = float(stats.spearmanr(similarity_x, similarity_y).pvalue)
    return MetricResult(
        metric="ect",
        attribute_set=attribute_set,
        value=value,
        group_x_value=None,
        group_y_value=None,
        weat_sign=0,
        direction="no direction (rank coherence; 1 = no bias)",
        vectors=vectors,
        convention=CONVENTION,
        details={"spearman_p_rho_zero": spearman_p},
        **shared_fields(interval, p, settings, n_target_x=len(x), n_target_y=len(y), n_attributes=len(s)),
    )
