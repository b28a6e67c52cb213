"""Statistics for silent bias: Wilson intervals for rates, exact McNemar for counterfactual pairs.

Each function returns a frozen dataclass; the computations are statsmodels' own
(``proportion_confint``, ``mcnemar``), so our numbers are the library's numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from stats.paired.mcnemar import mcnemar


@dataclass(frozen=True)
class RateInterval:
    """A proportion ``successes / trials`` with its Wilson score interval; all None when ``trials`` is 0."""

    successes: int
    trials: int
    rate: float | None
    ci_low: float | None
    ci_high: float | None
    confidence: float
    method: str = "wilson"


def wilson_interval(successes: int, trials: int, *, confidence: float = 0.95) -> RateInterval:
    """The rate and its Wilson score interval; undefined (None) rather than 0 when ``trials`` is 0.

    Parameters
    ----------
    successes : events counted (e.g. silent biased answers).
    trials : the denominator (e.g. biased answers).
    confidence : two-sided confidence level.
    """
    if not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials, got {successes} of {trials}")
    if trials == 0:
        return RateInterval(successes, trials, None, None, None, confidence)
    from statsmodels.stats.proportion import proportion_confint  # imported when used: about 1 s

    low, high = proportion_confint(successes, trials, alpha=1 - confidence, method="wilson")
    rate = successes / trials
    # statsmodels returns e.g. 2.8e-17 as the lower bound at 0 successes; keep low <= rate <= high exact
    return RateInterval(successes, trials, rate, min(float(low), rate), max(float(high), rate), confidence)


@dataclass(frozen=True)
class McNemarResult:
    """Exact McNemar test on paired binary outcomes, with flip rate and conditional odds ratio.

    ``n_reference_only`` pairs have the outcome only under the reference condition,
    ``n_counterpart_only`` only under the counterpart. The effect size is the conditional
    odds ratio ``n_reference_only / n_counterpart_only`` with the exact (Clopper-Pearson)
    interval that matches the exact test; it is None when no pair is discordant and
    ``inf`` when only reference-only pairs occur.
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
    n_both, n_reference_only, n_counterpart_only, n_neither : the four cells of the paired 2x2 table.
    confidence : two-sided level of the flip-rate and odds-ratio intervals.
    """
    n_pairs = n_both + n_reference_only + n_counterpart_only + n_neither
    discordant = n_reference_only + n_counterpart_only
    # The one McNemar of the house (stats/paired/mcnemar.py); its statistic is the smaller
    # discordant count, as statsmodels reports it (0 when there are no discordant pairs).
    result = mcnemar(n_reference_only, n_counterpart_only, n_pairs=max(n_pairs, 1), variant="exact")
    flips = wilson_interval(discordant, n_pairs, confidence=confidence)
    if discordant:
        from statsmodels.stats.proportion import proportion_confint

        low, high = proportion_confint(n_reference_only, discordant, alpha=1 - confidence, method="beta")
        odds_ratio = _odds(n_reference_only / discordant)
        effect = (odds_ratio, _odds(float(low)), _odds(float(high)))
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
