"""The one verdict policy: families of tests, adjustment within each family, and what may be claimed.

Every analysis step that decides significance passes its tests through :func:`with_verdicts`,
which adds to each row the family it belongs to, the family's size, the p-value adjusted
within the family (Holm by default, Benjamini-Hochberg when the study's ``[verdicts]
adjustment = "bh"``; :class:`biaswh.stats.multiple_comparisons.VerdictPolicy`), the alpha it was
judged at and ``is_significant`` (adjusted p < alpha). Cards and pages read those columns and
say the family, its size, the adjustment and alpha with :func:`significance_count`.

A "highest" (or "lowest") claim needs a test between the two: :func:`compare_rates` gives
Fisher's exact test and the Newcombe interval of the difference of two rates, and
:func:`highest` names a leader only when it differs significantly from every other member;
otherwise it says "tie" (equal rates) or "no evidence of a difference".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Literal

import polars as pl

from biaswh.stats.multiple_comparisons import VerdictPolicy, adjust_p_values, is_significant
from biaswh.warehouse.deferred_modules import scipy_stats

VERDICT_COLUMNS = ("family", "family_size", "p_adjusted", "adjustment", "alpha", "is_significant")
# Their types, as every verdict table stores them.
VERDICT_SCHEMA = {
    "family": pl.String,
    "family_size": pl.Int64,
    "p_adjusted": pl.Float64,
    "adjustment": pl.String,
    "alpha": pl.Float64,
    "is_significant": pl.Boolean,
}


def with_verdicts(
    frame: pl.DataFrame,
    *,
    by: list[str],
    family_name: Callable[[dict], str],
    policy: VerdictPolicy,
    p_column: str = "p_value",
    member: pl.Expr | None = None,
) -> pl.DataFrame:
    """``frame`` with the verdict columns, adjusting ``p_column`` within each family.

    Parameters
    ----------
    frame
        One row per test.
    by
        The columns whose values make one family (e.g. ``["embedding"]``).
    family_name
        The family's name from its key values, e.g. ``lambda k: f"embedding {k['embedding']}"``.
    policy
        The study's adjustment and alpha.
    p_column
        The raw p-value column.
    member
        Which rows are tests of a family (default: every row with a p-value); the
        others get no family, no adjusted p and ``is_significant = false`` (and the policy's alpha).

    Returns
    -------
    polars.DataFrame
        ``frame`` with ``family``, ``family_size``, ``p_adjusted``, ``adjustment``, ``alpha`` and
        ``is_significant``.
    """
    member = pl.col(p_column).is_not_null() if member is None else (member & pl.col(p_column).is_not_null())
    indexed = frame.with_row_index("_verdict_row")
    found: dict[int, tuple] = {}
    for key, group in indexed.filter(member).group_by(by, maintain_order=True):
        name = family_name(dict(zip(by, key)))
        adjusted = adjust_p_values(group[p_column].to_list(), method=policy.method)
        for row, p in zip(group["_verdict_row"].to_list(), adjusted):
            found[row] = (name, group.height, p, policy.name, policy.alpha, is_significant(p, policy.alpha))
    columns = {name: [] for name in VERDICT_COLUMNS}
    for row in range(indexed.height):
        values = found.get(row, (None, None, None, None, policy.alpha, False))
        for name, value in zip(VERDICT_COLUMNS, values):
            columns[name].append(value)
    verdicts = pl.DataFrame(columns, schema=VERDICT_SCHEMA)
    return pl.concat([frame.drop([c for c in VERDICT_COLUMNS if c in frame.columns]), verdicts], how="horizontal")


def alpha_text(alpha: float) -> str:
    """Alpha as every card and legend says it: "α = 0.05"."""
    return f"α = {alpha:g}"


def significance_count(
    n_significant: int, family_size: int, *, noun: str, adjustment: str, family: str, alpha: float
) -> str:
    """E.g. "2 of 30 WEAT tests significant after Holm within embedding glove, α = 0.05"."""
    return (
        f"{n_significant} of {family_size} {noun} significant after {adjustment} within {family}, {alpha_text(alpha)}"
    )


@dataclass(frozen=True)
class RateComparison:
    """Two independent rates: the difference a - b with its Newcombe interval, and Fisher's exact p."""

    rate_a: float
    rate_b: float
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    test: str = "Fisher's exact test (two-sided); Newcombe hybrid score interval of the difference"


def compare_rates(successes_a: int, trials_a: int, successes_b: int, trials_b: int) -> RateComparison:
    """Fisher's exact test of two independent rates and the Newcombe interval of their difference.

    Both denominators must be positive (a rate over nothing has nothing to compare).

    Parameters
    ----------
    successes_a, trials_a : int
        Rate A's numerator and denominator.
    successes_b, trials_b : int
        Rate B's.

    Returns
    -------
    RateComparison
        Both rates, their difference with its Newcombe interval, and Fisher's p.

    Raises
    ------
    ValueError
        When a denominator is not positive.
    """
    if trials_a <= 0 or trials_b <= 0:
        raise ValueError("both rates need a positive denominator")
    table = [[successes_a, trials_a - successes_a], [successes_b, trials_b - successes_b]]
    p_value = float(scipy_stats.fisher_exact(table, alternative="two-sided").pvalue)
    from statsmodels.stats.proportion import confint_proportions_2indep  # about 1 s: only where rates are compared

    low, high = confint_proportions_2indep(successes_a, trials_a, successes_b, trials_b, method="newcomb")
    rate_a, rate_b = successes_a / trials_a, successes_b / trials_b
    return RateComparison(rate_a, rate_b, rate_a - rate_b, float(low), float(high), min(p_value, 1.0))


@dataclass(frozen=True)
class Leader:
    """Who leads a ranking, if anyone may be named: ``verdict`` is "highest", "tie" or "no evidence of a difference"."""

    verdict: Literal["highest", "tie", "no evidence of a difference"]
    leader: str
    runner_up: str | None


def highest(rates: dict[str, float], is_significant: Callable[[str, str], bool]) -> Leader:
    """The member with the highest rate, named "highest" only if it differs significantly from every other.

    Parameters
    ----------
    rates
        Member -> rate (at least one member).
    is_significant
        Whether the (adjusted) test between two members is significant.

    Returns
    -------
    Leader
        The leader, and whether it may be called "highest", a "tie" or "no evidence of a difference".
    """
    ordered = sorted(rates.items(), key=lambda item: (-item[1], item[0]))
    top, top_rate = ordered[0]
    if len(ordered) == 1:
        return Leader("highest", top, None)
    runner_up, runner_up_rate = ordered[1]
    if top_rate == runner_up_rate:
        return Leader("tie", top, runner_up)
    if all(is_significant(top, other) for other, _ in ordered[1:]):
        return Leader("highest", top, runner_up)
    return Leader("no evidence of a difference", top, runner_up)
