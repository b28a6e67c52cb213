"""Plain-language reading of WEAT results: magnitude, bias level, direction, and a count per level."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Literal

from biaswh.stats.effect_sizes import Magnitude, magnitude

BiasLevel = Literal["high", "moderate", "weak", "minimal", "not significant"]
BIAS_LEVELS: tuple[str, ...] = ("high", "moderate", "weak", "minimal", "not significant", "not computed")
SIGNIFICANCE = 0.05
# A significant result's level is its |d| magnitude on the one scale (stats/effect_sizes.py),
# so a level and its magnitude can never disagree (no "weak (large)").
LEVEL_OF_MAGNITUDE: dict[str, BiasLevel] = {
    "large": "high",
    "medium": "moderate",
    "small": "weak",
    "negligible": "minimal",
}


@dataclass(frozen=True)
class Interpretation:
    """How one computed test reads: |d| magnitude, bias level, and which way the association goes."""

    magnitude: Magnitude
    bias_level: BiasLevel
    direction: str


def magnitude_label(effect_size: float) -> Magnitude:
    """|d| < 0.2 negligible, < 0.5 small, < 0.8 medium, otherwise large (the one d scale)."""
    return magnitude(effect_size, statistic="d")


def bias_level(effect_size: float, significant: bool) -> BiasLevel:
    """A significant result (after the verdict policy's adjustment): its magnitude as a level, large
    "high", medium "moderate", small "weak", negligible "minimal"; any other result "not significant"."""
    return LEVEL_OF_MAGNITUDE[magnitude_label(effect_size)] if significant else "not significant"


def _capitalised(label: str) -> str:
    return label[:1].upper() + label[1:]


def direction_sentence(effect_size: float, *, x_label: str, y_label: str, a_label: str, b_label: str) -> str:
    """E.g. "Male names are more associated with career words than female names (and female names with family words)."""
    if effect_size == 0:
        return f"{_capitalised(x_label)} and {y_label} are equally associated with {a_label} and {b_label}."
    first, second = (x_label, y_label) if effect_size > 0 else (y_label, x_label)
    return f"{_capitalised(first)} are more associated with {a_label} than {second} (and {second} more with {b_label})."


def is_significant(p_value: float, ci_low: float | None, ci_high: float | None, *, alpha: float = SIGNIFICANCE) -> bool:
    """p < alpha and, when an interval is known, the interval excludes 0."""
    if not p_value < alpha:
        return False
    if ci_low is None or ci_high is None or ci_low != ci_low or ci_high != ci_high:
        return True
    return ci_low > 0 or ci_high < 0


def null_sentence(effect_size: float, ci_low: float | None, ci_high: float | None) -> str:
    """The reading of a result that is not significant: no direction is claimed."""
    interval = (
        ""
        if ci_low is None or ci_high is None or ci_low != ci_low or ci_high != ci_high
        else f", 95% CI [{ci_low:.2f}, {ci_high:.2f}]"
    )
    return f"No evidence of a difference (d {effect_size:.2f}{interval})."


def interpret(
    effect_size: float,
    p_value: float,
    *,
    x_label: str,
    y_label: str,
    a_label: str,
    b_label: str,
    ci_low: float | None = None,
    ci_high: float | None = None,
    alpha: float = SIGNIFICANCE,
) -> Interpretation:
    """Magnitude, bias level and reading of one computed test.

    ``p_value`` is the p-value adjusted within the test's family (the verdict policy). The
    reading states a direction only for a significant result (p < alpha and the interval
    excluding 0); any other result reads "No evidence of a difference (d …, 95% CI […])".
    """
    size = magnitude_label(effect_size)
    significant = is_significant(p_value, ci_low, ci_high, alpha=alpha)
    if significant:
        direction = direction_sentence(effect_size, x_label=x_label, y_label=y_label, a_label=a_label, b_label=b_label)
        if size == "negligible":
            direction += " The difference is negligible (|d| < 0.2)."
    else:
        direction = null_sentence(effect_size, ci_low, ci_high)
    return Interpretation(size, bias_level(effect_size, significant), direction)


def level_counts(levels: Iterable[str]) -> dict[str, int]:
    """How many tests are at each bias level (every level listed, zeros included, in severity order)."""
    counted = Counter(levels)
    unknown = set(counted) - set(BIAS_LEVELS)
    if unknown:
        raise ValueError(f"unknown bias level(s): {sorted(unknown)}")
    return {level: counted.get(level, 0) for level in BIAS_LEVELS}
