"""The one effect-size scale per statistic: the words every page and card uses for a magnitude.

Each statistic has its own documented thresholds (Cohen 1988, *Statistical Power Analysis
for the Behavioral Sciences*), applied to the absolute value; below the first threshold a
magnitude is "negligible":

- Cohen's d and Hedges' g: 0.2 small, 0.5 medium, 0.8 large;
- a correlation r (Pearson, rank-biserial): 0.1 small, 0.3 medium, 0.5 large;
- Cramér's V (Cohen's w for one degree of freedom): 0.1 small, 0.3 medium, 0.5 large;
- R² (variance explained): 0.02 small, 0.13 medium, 0.26 large.

A magnitude word never says whether an effect is significant; that is the verdict policy's
job (:mod:`biaswh.stats.verdicts`).
"""

from __future__ import annotations

import math
from typing import Literal

Magnitude = Literal["negligible", "small", "medium", "large"]
Statistic = Literal["d", "r", "cramers_v", "r_squared"]

# statistic -> (small, medium, large) thresholds on the absolute value
SCALES: dict[str, tuple[float, float, float]] = {
    "d": (0.2, 0.5, 0.8),
    "r": (0.1, 0.3, 0.5),
    "cramers_v": (0.1, 0.3, 0.5),
    "r_squared": (0.02, 0.13, 0.26),
}
SYMBOLS = {"d": "|d|", "r": "|r|", "cramers_v": "V", "r_squared": "R²"}


def magnitude(value: float, *, statistic: Statistic) -> Magnitude | None:
    """The magnitude word of ``value`` on the scale of ``statistic`` (None for a missing value).

    Parameters
    ----------
    value : float or None
        The effect size.
    statistic : {"d", "r", "cramers_v", "r_squared"}
        Whose scale (:data:`SCALES`) to read it on.

    Returns
    -------
    str or None
        "negligible", "small", "medium" or "large"; None for a missing value.

    Raises
    ------
    ValueError
        For a statistic without a scale.
    """
    if statistic not in SCALES:
        raise ValueError(f"unknown statistic {statistic!r}; known: {', '.join(SCALES)}")
    if value is None or math.isnan(value):
        return None
    small, medium, large = SCALES[statistic]
    size = abs(value)
    if size < small:
        return "negligible"
    if size < medium:
        return "small"
    return "medium" if size < large else "large"


def scale_note(statistic: Statistic) -> str:
    """The scale as a page states it, e.g. "|d| 0.2 small, 0.5 medium, 0.8 large".

    Parameters
    ----------
    statistic : {"d", "r", "cramers_v", "r_squared"}
        The statistic whose scale to state.

    Returns
    -------
    str
        The three cut-offs with their words.
    """
    small, medium, large = SCALES[statistic]
    return f"{SYMBOLS[statistic]} {small:g} small, {medium:g} medium, {large:g} large"
