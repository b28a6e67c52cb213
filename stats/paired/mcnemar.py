"""McNemar's test on paired hits: exact, mid-p, and chi-square with continuity correction.

Only the discordant pairs carry information: ``only_a`` (variant A hit, B missed) and
``only_b``. With no discordant pairs every variant returns p = 1 (there is no evidence of
a difference), never 0 or NaN.
"""

from __future__ import annotations

import math
from typing import Literal

from biaswh.stats.paired.result import TestResult
from biaswh.warehouse.deferred_modules import scipy_stats as stats

McNemarVariant = Literal["exact", "mid-p", "chi2-cc"]
VARIANT_NAMES = {
    "exact": "exact binomial on discordant pairs",
    "mid-p": "mid-p binomial on discordant pairs",
    "chi2-cc": "chi-square with continuity correction",
}


def _p_value(only_a: int, only_b: int, variant: McNemarVariant) -> tuple[float, float]:
    discordant = only_a + only_b
    if discordant == 0:
        return math.nan, 1.0
    smaller = min(only_a, only_b)
    if variant == "exact":
        return float(smaller), min(1.0, 2.0 * stats.binom.cdf(smaller, discordant, 0.5))
    if variant == "mid-p":
        one_sided = stats.binom.cdf(smaller, discordant, 0.5) - 0.5 * stats.binom.pmf(smaller, discordant, 0.5)
        return float(smaller), min(1.0, 2.0 * one_sided)
    statistic = (abs(only_a - only_b) - 1.0) ** 2 / discordant
    return statistic, float(stats.chi2.sf(statistic, df=1))


def _paired_difference_interval(
    only_a: int, only_b: int, n_pairs: int, confidence: float
) -> tuple[float, float, float]:
    """Recall difference (A minus B) with the Wald interval for paired proportions."""
    difference = (only_a - only_b) / n_pairs
    variance = ((only_a + only_b) - (only_a - only_b) ** 2 / n_pairs) / n_pairs**2
    half_width = stats.norm.ppf(0.5 + confidence / 2) * math.sqrt(max(variance, 0.0))
    return difference, max(-1.0, difference - half_width), min(1.0, difference + half_width)


def mcnemar(
    only_a: int, only_b: int, *, n_pairs: int, variant: McNemarVariant = "exact", confidence: float = 0.95
) -> TestResult:
    """McNemar's test for a paired difference in hit rates.

    Parameters
    ----------
    only_a, only_b
        Discordant pair counts (A hit and B missed; B hit and A missed).
    n_pairs
        All pairs compared, concordant included (for the effect size).
    variant
        ``exact`` (two-sided binomial, the default), ``mid-p``, or ``chi2-cc``
        (what the original notebook reported).
    confidence
        Level of the interval.

    Returns
    -------
    TestResult
        With ``n`` = discordant pairs and the recall difference A - B as effect,
        with a Wald interval for paired proportions.

    Raises
    ------
    ValueError
        When a count is negative or the discordant pairs exceed ``n_pairs``.
    """
    if min(only_a, only_b) < 0 or only_a + only_b > n_pairs:
        raise ValueError("discordant counts must be non-negative and at most n_pairs")
    statistic, p_value = _p_value(only_a, only_b, variant)
    difference, low, high = _paired_difference_interval(only_a, only_b, max(n_pairs, 1), confidence)
    return TestResult(
        test="mcnemar",
        variant=VARIANT_NAMES[variant],
        n=only_a + only_b,
        statistic=statistic,
        p_value=p_value,
        effect_name="recall difference (A - B)",
        effect_size=difference,
        ci_low=low,
        ci_high=high,
        confidence=confidence,
        note="no discordant pairs: no evidence either way" if only_a + only_b == 0 else "",
    )
