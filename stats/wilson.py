"""Wilson's score interval of a proportion ``successes / trials``.

The interval is statsmodels' own (``proportion_confint(method="wilson")``), so our numbers are
the library's numbers; what this module adds is the house's rule for an empty denominator: a
rate over no trials is undefined (None), never 0.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RateInterval:
    """A proportion ``successes / trials`` with its Wilson score interval.

    Attributes
    ----------
    successes : events counted (e.g. silent biased answers).
    trials : the denominator (e.g. biased answers).
    rate : ``successes / trials``; None when ``trials`` is 0.
    ci_low, ci_high : the interval at ``confidence``; None when ``trials`` is 0.
    confidence : two-sided confidence level, e.g. 0.95.
    method : how the interval was made.
    """

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
    successes : int
        Events counted (e.g. silent biased answers).
    trials : int
        The denominator (e.g. biased answers).
    confidence : float, default 0.95
        Two-sided confidence level.

    Returns
    -------
    RateInterval
        The rate with ``ci_low <= rate <= ci_high``; rate and interval None without trials.

    Raises
    ------
    ValueError
        When ``successes`` is negative or more than ``trials``.
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
