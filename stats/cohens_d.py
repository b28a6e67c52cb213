"""Cohen's d of two independent groups, Hedges' g with its interval, and Welch's t-test.

d is the difference of the means over the pooled standard deviation (ddof 1); Hedges' g
corrects its small-sample bias with Hedges & Olkin's (1985) J = 1 - 3 / (4(n_a + n_b) - 9), as
statsmodels' ``effectsize_smd`` does; the interval of g is the normal approximation with
var(d) ≈ (n_a + n_b) / (n_a n_b) + d² / (2(n_a + n_b)), scaled by J. The p-value is scipy's
Welch t-test (unequal variances), whose warnings (e.g. precision loss when one group is
constant) are kept with the result rather than printed.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from biaswh.warehouse.deferred_modules import scipy_stats as stats

VARIANT = (
    "Welch's t-test (two-sided, unequal variances); Cohen's d with pooled SD (ddof=1);"
    " Hedges' g interval by normal approximation"
)


@dataclass(frozen=True)
class CohensDResult:
    """Cohen's d of group A minus group B, Hedges' g with its interval, and Welch's t-test.

    Attributes
    ----------
    d : (mean A - mean B) / pooled SD; positive when A's values are higher.
    hedges_g : d corrected for small-sample bias.
    ci_low, ci_high : the interval of ``hedges_g`` at ``confidence``.
    statistic, degrees_of_freedom : Welch's t and its (fractional) degrees of freedom.
    p_value : Welch's two-sided p; 1 where scipy's is undefined.
    n_a, n_b : the values in each group.
    confidence : level of the interval.
    variant : the exact test and options used.
    warning : scipy's warnings during the test, joined; None when there were none.
    """

    d: float
    hedges_g: float
    ci_low: float
    ci_high: float
    statistic: float
    degrees_of_freedom: float
    p_value: float
    n_a: int
    n_b: int
    confidence: float
    variant: str = VARIANT
    warning: str | None = None


def _hedges_g_interval(d: float, n_a: int, n_b: int, confidence: float) -> tuple[float, float, float]:
    n = n_a + n_b
    correction = 1 - 3 / (4 * n - 9)
    g = correction * d
    standard_error = correction * math.sqrt(n / (n_a * n_b) + d * d / (2 * n))
    z = stats.norm.ppf(0.5 + confidence / 2)
    return g, g - z * standard_error, g + z * standard_error


def cohens_d_welch(group_a, group_b, *, confidence: float = 0.95) -> CohensDResult:
    """Cohen's d and Hedges' g of ``group_a`` minus ``group_b``, with Welch's t-test.

    Parameters
    ----------
    group_a, group_b : array_like
        The values of each group, without missing values; at least two each.
    confidence : float, default 0.95
        Level of the Hedges' g interval.

    Returns
    -------
    CohensDResult
        d, g with its interval, Welch's t, degrees of freedom and p.

    Raises
    ------
    ValueError
        When a group holds fewer than two values, or both groups are constant (d is undefined).
    """
    a, b = np.asarray(group_a, dtype=float), np.asarray(group_b, dtype=float)
    n_a, n_b = len(a), len(b)
    if n_a < 2 or n_b < 2:
        raise ValueError(f"Cohen's d needs at least two values per group, got {n_a} and {n_b}")
    var_a, var_b = np.var(a, ddof=1), np.var(b, ddof=1)
    if var_a == 0 and var_b == 0:
        raise ValueError("both groups are constant: Cohen's d is undefined")
    pooled_sd = math.sqrt(((n_a - 1) * var_a + (n_b - 1) * var_b) / (n_a + n_b - 2))
    d = float((a.mean() - b.mean()) / pooled_sd)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        welch = stats.ttest_ind(a, b, equal_var=False)
    g, low, high = _hedges_g_interval(d, n_a, n_b, confidence)
    return CohensDResult(
        d=d,
        hedges_g=g,
        ci_low=low,
        ci_high=high,
        statistic=float(welch.statistic),
        degrees_of_freedom=float(welch.df),
        p_value=1.0 if math.isnan(welch.pvalue) else float(welch.pvalue),
        n_a=n_a,
        n_b=n_b,
        confidence=confidence,
        warning="; ".join(dict.fromkeys(str(w.message) for w in caught)) or None,
    )
