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
    n_nonzero : units with a nonzero difference (what a sign-flip test can flip), where it applies.
    min_p : the smallest p-value this test can give at its n (2 / 2^n_nonzero for an exact
        two-sided sign-flip test, 1 / (B + 1) for B Monte Carlo draws), where known.
    p_t_test : the paired t-test's p beside a randomization test (NaN where t is undefined).
    ci_method : how the interval was made, e.g. ``BCa bootstrap, 2,000 resamples``.
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
    n_nonzero: int | None = None
    min_p: float | None = None
    p_t_test: float | None = None
    ci_method: str = ""
