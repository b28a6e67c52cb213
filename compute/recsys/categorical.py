"""Categorical and binary features: Cramér's V from the chi-square test of value × group.

The statistic is :func:`biaswh.stats.cramers_v.cramers_v_chi_square` over a table with one row per
feature value and two columns (pool, recommended). Like the original (scipy's
``chi2_contingency`` default), Yates' continuity correction is applied by default, which is
why small differences in binary features give exactly V = 0 and p = 1. This module adds the
original tool's rules around it: missing values dropped, fewer than ``min_group_size`` values
in a group is "insufficient data", a single value per group is "no variance".
"""

from __future__ import annotations

import math

from biaswh.compute.recsys.result import MIN_GROUP_SIZE, BiasTestResult
from biaswh.stats.cramers_v import contingency_table, variant_name
from biaswh.stats.cramers_v import cramers_v_chi_square as cramers_v_of_table


def _dropped_missing(values) -> list:
    return [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]


def cramers_v_chi_square(
    recommended,
    pool,
    *,
    min_group_size: int = MIN_GROUP_SIZE,
    yates: bool = True,
) -> BiasTestResult:
    """Compare a categorical or binary feature's distribution between recommended items and the pool.

    Parameters
    ----------
    recommended, pool : the feature's values in each group; missing values (None, NaN) are dropped.
    min_group_size : fewer values in either group gives "insufficient data" (bias 0, p 1).
    yates : apply Yates' continuity correction to 2×2 tables (the original's choice).

    Returns
    -------
    BiasTestResult
        ``bias`` is Cramér's V, between 0 and 1 and without direction; ``p_value`` is the
        chi-square test of independence. When each group holds a single value the result is
        "no variance" (bias 0, p 1).
    """
    rec, pool_values = _dropped_missing(recommended), _dropped_missing(pool)
    n_rec, n_pool = len(rec), len(pool_values)
    variant = variant_name(yates=yates)
    if n_rec < min_group_size or n_pool < min_group_size:
        return BiasTestResult(
            "insufficient_data",
            0.0,
            1.0,
            "insufficient data",
            variant,
            n_rec,
            n_pool,
            message=f"fewer than {min_group_size} values in a group",
        )
    # As the original: each group holding a single value counts as no variance, even when
    # the two values differ (a degenerate table the original does not test).
    if len(set(map(str, rec))) <= 1 and len(set(map(str, pool_values))) <= 1:
        return BiasTestResult(
            "Cramér's V (no variance)",
            0.0,
            1.0,
            "no variance",
            variant,
            n_rec,
            n_pool,
            message="each group holds a single value",
        )
    try:
        result = cramers_v_of_table(contingency_table([pool_values, rec]), yates=yates)
    except (ValueError, ZeroDivisionError, FloatingPointError) as exc:
        return BiasTestResult(
            f"Cramér's V (error: {str(exc)[:20]})", 0.0, 1.0, "error", variant, n_rec, n_pool, message=str(exc)
        )
    return BiasTestResult(
        "Cramér's V",
        result.v,
        result.p_value,
        "ok",
        variant,
        n_rec,
        n_pool,
        statistic=result.statistic,
        degrees_of_freedom=result.degrees_of_freedom,
        bias_corrected_v=result.bias_corrected_v,
        yates_applied=result.yates_applied,
    )
