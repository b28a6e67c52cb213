"""Categorical and binary features: Cramér's V from the chi-square test of value × group.

The contingency table has one row per feature value and two columns (pool, recommended).
Like the original (scipy's ``chi2_contingency`` default), Yates' continuity correction is
applied by default; scipy applies it only when the table has one degree of freedom, i.e.
for 2×2 tables (binary features, or a categorical feature with two observed values). The
corrected chi-square then feeds both V and the p-value, which is why small differences in
binary features give exactly V = 0 and p = 1.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import chi2_contingency

from compute.recsys.result import MIN_GROUP_SIZE, BiasTestResult


def contingency_table(recommended, pool) -> np.ndarray:
    """Counts of each value (rows, sorted) in the pool (column 0) and recommended (column 1)."""
    rec, pool_values = [str(v) for v in recommended], [str(v) for v in pool]
    values = sorted(set(rec) | set(pool_values))
    index = {v: i for i, v in enumerate(values)}
    table = np.zeros((len(values), 2), dtype=np.int64)
    for column, group in ((0, pool_values), (1, rec)):
        for value in group:
            table[index[value], column] += 1
    return table


def bias_corrected_cramers_v(chi_square: float, table: np.ndarray) -> float:
    """Bergsma's (2013) bias-corrected Cramér's V for a table with chi-square ``chi_square``."""
    n = table.sum()
    rows, columns = table.shape
    phi_squared = max(0.0, chi_square / n - (rows - 1) * (columns - 1) / (n - 1))
    rows_corrected = rows - (rows - 1) ** 2 / (n - 1)
    columns_corrected = columns - (columns - 1) ** 2 / (n - 1)
    denominator = min(rows_corrected - 1, columns_corrected - 1)
    return 0.0 if denominator <= 0 else math.sqrt(phi_squared / denominator)


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
        ``bias`` is Cramér's V = sqrt(chi² / (n · (min(rows, columns) - 1))), between 0 and 1
        and without direction; ``p_value`` is the chi-square test of independence. When each
        group holds a single value the result is "no variance" (bias 0, p 1).
    """
    rec, pool_values = _dropped_missing(recommended), _dropped_missing(pool)
    n_rec, n_pool = len(rec), len(pool_values)
    variant = "Pearson chi-square test of independence (value × group)" + (
        ", Yates' continuity correction on 2×2 tables" if yates else ", no continuity correction"
    )
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
        table = contingency_table(rec, pool_values)
        test = chi2_contingency(table, correction=yates)
        n = int(table.sum())
        v = math.sqrt(test.statistic / (n * (min(table.shape) - 1)))
        p_value = 1.0 if math.isnan(test.pvalue) else float(test.pvalue)
    except (ValueError, ZeroDivisionError, FloatingPointError) as exc:
        return BiasTestResult(
            f"Cramér's V (error: {str(exc)[:20]})", 0.0, 1.0, "error", variant, n_rec, n_pool, message=str(exc)
        )
    return BiasTestResult(
        "Cramér's V",
        float(v),
        p_value,
        "ok",
        variant,
        n_rec,
        n_pool,
        statistic=float(test.statistic),
        degrees_of_freedom=float(test.dof),
        bias_corrected_v=bias_corrected_cramers_v(float(test.statistic), table),
        yates_applied=bool(yates and test.dof == 1),
    )
