"""Bootstrap confidence interval for the WEAT effect size d (scipy.stats.bootstrap, seeded)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from biaswh.compute.weat.effect_size import _effect_size_kernel
from biaswh.warehouse.deferred_modules import scipy_stats as stats

BootstrapMethod = Literal["percentile", "basic", "BCa"]


@dataclass(frozen=True)
class BootstrapInterval:
    """A two-sided interval for d from resampling X and Y independently (attribute sets held fixed)."""

    low: float
    high: float
    confidence_level: float
    method: str
    n_resamples: int


def effect_size_interval(
    s_x: np.ndarray,
    s_y: np.ndarray,
    *,
    seed: int | np.random.SeedSequence,
    confidence_level: float = 0.95,
    n_resamples: int = 5000,
    method: BootstrapMethod = "percentile",
) -> BootstrapInterval:
    """Interval for d: target words of X and of Y are resampled with replacement, each within its set.

    A resample in which every score is equal has no SD; such resamples are dropped (d undefined),
    which only happens with very few, tied scores.
    """
    s_x, s_y = np.asarray(s_x, dtype=np.float64), np.asarray(s_y, dtype=np.float64)

    def statistic(x, y, axis=-1):
        with np.errstate(divide="ignore", invalid="ignore"):
            return _effect_size_kernel(x, y, axis=axis)

    result = stats.bootstrap(
        (s_x, s_y),
        statistic,
        n_resamples=n_resamples,
        vectorized=True,
        paired=False,
        confidence_level=confidence_level,
        method=method,
        rng=np.random.default_rng(seed),
    )
    low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
    if not (np.isfinite(low) and np.isfinite(high)):
        # Fall back to the percentile interval of the finite resamples rather than report NaN.
        finite = result.bootstrap_distribution[np.isfinite(result.bootstrap_distribution)]
        tail = (1 - confidence_level) / 2 * 100
        low, high = (float(v) for v in np.percentile(finite, [tail, 100 - tail]))
        method = f"{method} (percentile of finite resamples)"
    return BootstrapInterval(low, high, confidence_level, method, n_resamples)
