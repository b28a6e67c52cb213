"""The one result type shared by the pool-vs-recommended tests of every feature family."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# The original methodology's minimum: fewer values in either group gives "insufficient data".
MIN_GROUP_SIZE = 10
Status = Literal["ok", "insufficient data", "no variance", "error"]


@dataclass(frozen=True)
class BiasTestResult:
    """One feature's bias under one condition: recommended items against the pool.

    Attributes
    ----------
    metric : the original tool's label ("Cohen's d", "Cramér's V", "insufficient_data",
        "Cohen's d (no variance)", "Cramér's V (error: ...)").
    bias : Cohen's d (recommended minus pool) or Cramér's V; 0 unless ``status`` is ok.
    p_value : Welch's t-test or chi-square p-value; 1 unless ``status`` is ok.
    status : ok, insufficient data, no variance, or error (``message`` says why).
    test_variant : the exact test and options used.
    statistic, degrees_of_freedom : t or chi-square, and its degrees of freedom.
    hedges_g, interval : small-sample corrected d and its confidence interval (numerical).
    bias_corrected_v : Bergsma's bias-corrected Cramér's V (categorical and binary).
    yates_applied : whether Yates' continuity correction changed the chi-square (2×2 only).
    """

    metric: str
    bias: float
    p_value: float
    status: Status
    test_variant: str
    n_recommended: int
    n_pool: int
    statistic: float | None = None
    degrees_of_freedom: float | None = None
    hedges_g: float | None = None
    interval: tuple[float, float] | None = None
    bias_corrected_v: float | None = None
    yates_applied: bool | None = None
    message: str | None = None
