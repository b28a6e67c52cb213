"""What a dialect study could detect, said two ways that must not be confused.

- **Planning power** (before the data): the smallest recall gap N pairs detect with 80% power if
  the variants disagree on an assumed share of pairs (Connor 1987, :func:`biaswh.stats.paired.power.detectable_gap`).
  200 pairs at 12.5% discordance: about 7 points.
- **Power at the observed discordance** (after the data, ``analysis.dialect_power``): the same
  formula at the share of pairs the variants did disagree on. A recall difference can never exceed
  that share (it is ``(only_a - only_b) / n``), so a "detectable gap" above it is out of reach:
  with 6 discordant pairs of 200 no gap is detectable, although the formula returns 3.41 points.
"""

from __future__ import annotations

from biaswh.dashboards.common.format import count, fixed, is_missing, percent
from biaswh.stats.paired.power import detectable_gap

# discordance rates a study is planned at (the share of pairs where the two variants disagree)
PLANNING_DISCORDANCE = (0.05, 0.125, 0.25)


def reachable_gap(row: dict) -> float | None:
    """``detectable_gap_pp`` of one ``analysis.dialect_power`` row when a gap that large can occur at the
    observed discordance (below ``100 * discordance_rate``), else None: not detectable."""
    gap, rate = row.get("detectable_gap_pp"), row.get("discordance_rate")
    if is_missing(gap) or is_missing(rate) or gap >= 100 * rate:
        return None
    return gap


def power_sentences(n_pairs: int, *, alpha: float, power: float = 0.8) -> str:
    """The note that tells planning power from power at the observed discordance, one sentence each
    (``alpha``: the study's verdict policy's, as its power table)."""
    if not n_pairs:
        return ""
    gaps = [100 * detectable_gap(n_pairs, rate, alpha=alpha, power=power) for rate in PLANNING_DISCORDANCE]
    planned = ", ".join(f"{fixed(g, 1)} points at {percent(rate)}" for g, rate in zip(gaps, PLANNING_DISCORDANCE))
    return (
        f'<p class="note"><b>Planning power</b> (before the data): {count(n_pairs)} pairs detect with '
        f"{power:.0%} power (two-sided, α = {alpha:g}) a recall gap of {planned} discordance, the share of "
        "pairs where the variants disagree, assumed in advance. <b>Power at the observed discordance</b> "
        "(the table): the same formula at the discordance this run saw, where a gap can never exceed the "
        'share of discordant pairs, so a gap above it reads "none": few discordant pairs make a gap '
        "undetectable however small the planning figure.</p>"
    )
