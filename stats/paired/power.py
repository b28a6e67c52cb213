"""Power of McNemar's test: what gap a paired study can detect, and what n it would need.

Uses the normal approximation of Connor (1987): for n pairs with discordance rate psi
(share of pairs where the variants disagree) and a true difference delta in hit rates,

    n = (z_{1-alpha/2} * sqrt(psi) + z_{power} * sqrt(psi - delta^2))^2 / delta^2.

A study with few discordant pairs can only detect large gaps; it must say so plainly. Alpha has no
default: it is the study's verdict policy's (``[verdicts] alpha``), passed by the caller.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from biaswh.warehouse.deferred_modules import scipy_optimize as optimize
from biaswh.warehouse.deferred_modules import scipy_stats as stats


@dataclass(frozen=True)
class PowerStatement:
    """What the study could detect, in numbers and in words."""

    n_pairs: int
    n_discordant: int
    discordance_rate: float
    alpha: float
    power: float
    detectable_gap: float  # smallest |recall difference| detectable with `power`
    target_gap: float
    pairs_needed_for_target: float  # at the observed discordance rate (inf when impossible)
    sentence: str


def pairs_needed(delta: float, psi: float, *, alpha: float, power: float = 0.8) -> float:
    """Pairs needed to detect a difference ``delta`` at discordance rate ``psi`` (Connor 1987)."""
    if not 0 < abs(delta) or delta**2 >= psi:
        return math.inf
    z_alpha, z_power = stats.norm.ppf(1 - alpha / 2), stats.norm.ppf(power)
    return float((z_alpha * math.sqrt(psi) + z_power * math.sqrt(psi - delta**2)) ** 2 / delta**2)


def detectable_gap(n_pairs: int, psi: float, *, alpha: float, power: float = 0.8) -> float:
    """Smallest |difference| detectable with ``power`` given ``n_pairs`` and discordance ``psi``."""
    if n_pairs <= 0 or psi <= 0:
        return math.inf
    upper = math.sqrt(psi) * (1 - 1e-12)
    if pairs_needed(upper, psi, alpha=alpha, power=power) > n_pairs:
        return math.inf  # even the largest gap this discordance allows is out of reach
    return optimize.brentq(lambda d: pairs_needed(d, psi, alpha=alpha, power=power) - n_pairs, 1e-9, upper)


def power_statement(
    n_pairs: int, n_discordant: int, *, alpha: float, power: float = 0.8, target_gap: float = 0.02
) -> PowerStatement:
    """Detectable gap and pairs needed for ``target_gap``, with a plain-language sentence."""
    psi = n_discordant / n_pairs if n_pairs else 0.0
    gap = detectable_gap(n_pairs, psi, alpha=alpha, power=power)
    # With no discordance observed, plan for at least one discordant pair in n (a floor, not an estimate).
    planning_psi = psi if psi > 0 else 1 / max(n_pairs, 1)
    needed = pairs_needed(target_gap, max(planning_psi, target_gap**2 * 1.0001), alpha=alpha, power=power)
    pairs_word = "pair" if n_discordant == 1 else "pairs"
    if math.isinf(gap) or gap >= psi:
        sentence = (
            f"With {n_discordant} discordant {pairs_word} out of {n_pairs}, this study cannot tell whether the "
            f"variants differ: no recall gap its discordance allows ({psi * 100:.1f} points at most) "
            f"would be detected with {power:.0%} power at α = {alpha:g}."
        )
    else:
        sentence = (
            f"With {n_discordant} discordant {pairs_word} out of {n_pairs}, only a recall gap of "
            f"{gap * 100:.1f} points or more would be detected with {power:.0%} power at α = {alpha:g}; "
            f"detecting a {target_gap * 100:.0f}-point gap would need about {math.ceil(needed):,} pairs."
        )
        if gap > 0.05:
            sentence += " A non-significant result here is not evidence that the variants perform alike."
    return PowerStatement(
        n_pairs=n_pairs,
        n_discordant=n_discordant,
        discordance_rate=psi,
        alpha=alpha,
        power=power,
        detectable_gap=gap,
        target_gap=target_gap,
        pairs_needed_for_target=needed,
        sentence=sentence,
    )
