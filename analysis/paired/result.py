"""The one result shape every statistical test in this package returns."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TestResult:
    """A test's outcome, reported together as the house style asks.

    Attributes
    ----------
    test : the test family, e.g. ``mcnemar``.
    variant : the exact variant used, e.g. ``exact``, ``mid-p``, ``chi2 with continuity correction``.
    n : the number of units the test used (pairs, or discordant pairs where that is what counts).
    statistic : the test statistic (``nan`` where a variant has none).
    p_value : two-sided p-value, always in [0, 1], never NaN.
    effect_size : the effect the test is about, named by ``effect_name``.
    ci_low, ci_high : the interval of the effect size at ``confidence``.
    """

    __test__ = False  # not a pytest class

    test: str
    variant: str
    n: int
    statistic: float
    p_value: float
    effect_name: str
    effect_size: float
    ci_low: float
    ci_high: float
    confidence: float = 0.95
    note: str = ""
