"""Numerical features: Cohen's d (recommended minus pool), Hedges' g with an interval, Welch's t-test."""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy import stats

from compute.recsys.result import MIN_GROUP_SIZE, BiasTestResult

TEST_VARIANT = (
    "Welch's t-test (two-sided, unequal variances); Cohen's d with pooled SD (ddof=1);"
    " Hedges' g interval by normal approximation"
)


def _values(values) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    return array[~np.isnan(array)]


def _hedges_g_interval(d: float, n_rec: int, n_pool: int, confidence: float) -> tuple[float, tuple[float, float]]:
    # Hedges & Olkin (1985): g = J·d with J = 1 - 3 / (4(n1+n2) - 9); var(d) ≈ (n1+n2)/(n1·n2) + d²/(2(n1+n2)).
    n = n_rec + n_pool
    correction = 1 - 3 / (4 * n - 9)
    g = correction * d
    standard_error = correction * math.sqrt(n / (n_rec * n_pool) + d * d / (2 * n))
    z = stats.norm.ppf(0.5 + confidence / 2)
    return g, (g - z * standard_error, g + z * standard_error)


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
    var_rec, var_pool = np.var(rec, ddof=1), np.var(pool_values, ddof=1)
    if var_rec == 0 and var_pool == 0:
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
    pooled_sd = math.sqrt(((n_rec - 1) * var_rec + (n_pool - 1) * var_pool) / (n_rec + n_pool - 2))
    d = float((rec.mean() - pool_values.mean()) / pooled_sd)
    # scipy warns (e.g. precision loss when one group is constant); keep the warning with the result.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        welch = stats.ttest_ind(rec, pool_values, equal_var=False)
    message = "; ".join(dict.fromkeys(str(w.message) for w in caught)) or None
    p_value = 1.0 if math.isnan(welch.pvalue) else float(welch.pvalue)
    g, interval = _hedges_g_interval(d, n_rec, n_pool, confidence)
    return BiasTestResult(
        "Cohen's d",
        d,
        p_value,
        "ok",
        TEST_VARIANT,
        n_rec,
        n_pool,
        statistic=float(welch.statistic),
        degrees_of_freedom=float(welch.df),
        hedges_g=g,
        interval=interval,
        message=message,
    )
