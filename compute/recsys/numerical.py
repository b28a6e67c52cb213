"""Numerical features: Cohen's d (recommended minus pool), Hedges' g with an interval, Welch's t-test.

The statistic is :func:`biaswh.stats.cohens_d.cohens_d_welch`; this module adds the original tool's
rules around it: missing values dropped, fewer than ``min_group_size`` values in a group is
"insufficient data", two constant groups are "no variance" (bias 0, p 1 for both).
"""

from __future__ import annotations

import numpy as np

from biaswh.compute.recsys.result import MIN_GROUP_SIZE, BiasTestResult
from biaswh.stats.cohens_d import VARIANT as TEST_VARIANT
from biaswh.stats.cohens_d import cohens_d_welch as cohens_d_of_groups


def _values(values) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    return array[~np.isnan(array)]


def cohens_d_welch(
    recommended,
    pool,
    *,
    min_group_size: int = MIN_GROUP_SIZE,
    confidence: float = 0.95,
) -> BiasTestResult:
    """Compare a numerical feature between recommended items and the pool.

    Parameters
    ----------
    recommended, pool : the feature's values in each group; missing values (NaN) are dropped.
    min_group_size : fewer values in either group gives "insufficient data" (bias 0, p 1).
    confidence : level of the Hedges' g interval.

    Returns
    -------
    BiasTestResult
        ``bias`` is Cohen's d = (mean_recommended - mean_pool) / pooled SD, positive when the
        model favours higher values; ``p_value`` is Welch's two-sided t-test. When both
        groups are constant the result is "no variance" (bias 0, p 1), as in the original.
    """
    rec, pool_values = _values(recommended), _values(pool)
    n_rec, n_pool = len(rec), len(pool_values)
    if n_rec < min_group_size or n_pool < min_group_size:
        return BiasTestResult(
            "insufficient_data",
            0.0,
            1.0,
            "insufficient data",
            TEST_VARIANT,
            n_rec,
            n_pool,
            message=f"fewer than {min_group_size} values in a group",
        )
    if np.var(rec, ddof=1) == 0 and np.var(pool_values, ddof=1) == 0:
        return BiasTestResult(
            "Cohen's d (no variance)",
            0.0,
            1.0,
            "no variance",
            TEST_VARIANT,
            n_rec,
            n_pool,
            message="both groups are constant",
        )
    result = cohens_d_of_groups(rec, pool_values, confidence=confidence)
    return BiasTestResult(
        "Cohen's d",
        result.d,
        result.p_value,
        "ok",
        TEST_VARIANT,
        n_rec,
        n_pool,
        statistic=result.statistic,
        degrees_of_freedom=result.degrees_of_freedom,
        hedges_g=result.hedges_g,
        interval=(result.ci_low, result.ci_high),
        message=result.warning,
    )
