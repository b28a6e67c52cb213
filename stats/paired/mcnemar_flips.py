"""Exact McNemar on paired binary outcomes, with the flip rate and the conditional odds ratio.

Each pair is one item under a reference and a counterpart condition (e.g. a vignette and its
counterfactual); the outcome either holds under both, under one only, or under neither. The
test is :func:`biaswh.stats.paired.mcnemar.mcnemar` (exact binomial on the discordant pairs); beside
it stand the share of pairs whose outcome flips (with its Wilson interval) and the conditional
odds ratio ``n_reference_only / n_counterpart_only`` with the exact (Clopper-Pearson) interval
that matches the exact test.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from biaswh.stats.paired.mcnemar import mcnemar
from biaswh.stats.wilson import wilson_interval


@dataclass(frozen=True)
class McNemarResult:
    """Exact McNemar test on paired binary outcomes, with flip rate and conditional odds ratio.

    Attributes
    ----------
    test : the test and its variant, in words.
    n_pairs : all pairs, concordant included.
    n_both, n_reference_only, n_counterpart_only, n_neither : the four cells of the paired table.
    statistic : the smaller discordant count, as statsmodels reports it (0 without discordant pairs).
    p_value : two-sided exact p.
    flip_rate, flip_rate_ci_low, flip_rate_ci_high : discordant pairs over all pairs, with the
        Wilson interval; None without pairs.
    effect_size_name : what ``effect_size`` is.
    effect_size, effect_ci_low, effect_ci_high : the conditional odds ratio and its exact
        interval; None when no pair is discordant and ``inf`` when only reference-only pairs occur.
    confidence : two-sided level of the intervals.
    """

    test: str
    n_pairs: int
    n_both: int
    n_reference_only: int
    n_counterpart_only: int
    n_neither: int
    statistic: float
    p_value: float
    flip_rate: float | None
    flip_rate_ci_low: float | None
    flip_rate_ci_high: float | None
    effect_size_name: str
    effect_size: float | None
    effect_ci_low: float | None
    effect_ci_high: float | None
    confidence: float


def _odds(p: float) -> float:
    return math.inf if p >= 1.0 else p / (1.0 - p)


def mcnemar_exact(
    *, n_both: int, n_reference_only: int, n_counterpart_only: int, n_neither: int, confidence: float = 0.95
) -> McNemarResult:
    """Exact (binomial) McNemar test of whether an outcome depends on the paired condition.

    Parameters
    ----------
    n_both : int
        Pairs with the outcome under both conditions.
    n_reference_only : int
        Pairs with the outcome under the reference condition only.
    n_counterpart_only : int
        Pairs with the outcome under the counterpart condition only.
    n_neither : int
        Pairs with the outcome under neither condition.
    confidence : float, default 0.95
        Two-sided level of the flip-rate and odds-ratio intervals.

    Returns
    -------
    McNemarResult
        The exact p, the flip rate and the conditional odds ratio, each with its interval.

    Raises
    ------
    ValueError
        From :func:`biaswh.stats.paired.mcnemar.mcnemar` or :func:`biaswh.stats.wilson.wilson_interval`
        when a count is negative.
    """
    n_pairs = n_both + n_reference_only + n_counterpart_only + n_neither
    discordant = n_reference_only + n_counterpart_only
    result = mcnemar(n_reference_only, n_counterpart_only, n_pairs=max(n_pairs, 1), variant="exact")
    flips = wilson_interval(discordant, n_pairs, confidence=confidence)
    if discordant:
        from statsmodels.stats.proportion import proportion_confint  # imported when used: about 1 s

        low, high = proportion_confint(n_reference_only, discordant, alpha=1 - confidence, method="beta")
        effect = (_odds(n_reference_only / discordant), _odds(float(low)), _odds(float(high)))
    else:
        effect = (None, None, None)
    return McNemarResult(
        test="McNemar exact (two-sided binomial test on the discordant pairs)",
        n_pairs=n_pairs,
        n_both=n_both,
        n_reference_only=n_reference_only,
        n_counterpart_only=n_counterpart_only,
        n_neither=n_neither,
        statistic=float(min(n_reference_only, n_counterpart_only)),
        p_value=float(result.p_value),
        flip_rate=flips.rate,
        flip_rate_ci_low=flips.ci_low,
        flip_rate_ci_high=flips.ci_high,
        effect_size_name="conditional odds ratio (reference-only / counterpart-only flips)",
        effect_size=effect[0],
        effect_ci_low=effect[1],
        effect_ci_high=effect[2],
        confidence=confidence,
    )
