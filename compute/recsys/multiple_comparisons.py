"""Multiple comparisons over a study's pool-vs-recommended tests: Holm or Benjamini-Hochberg.

The adjustment itself is the project's shared one (:mod:`compute.multiple_comparisons`,
statsmodels' ``multipletests``); this module records with it what a recsys result row needs:
the method, the family size and which tests stay significant.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from compute.multiple_comparisons import adjust_p_values as _shared_adjustment

AdjustmentMethod = Literal["holm", "fdr_bh"]
METHOD_NAMES = {"holm": "Holm (family-wise error rate)", "fdr_bh": "Benjamini-Hochberg (false discovery rate)"}


@dataclass(frozen=True)
class AdjustedPValues:
    """Adjusted p-values, in the order of the raw ones, and which tests stay significant."""

    method: AdjustmentMethod
    alpha: float
    n_tests: int
    p_values: tuple[float, ...]
    p_values_adjusted: tuple[float, ...]
    rejected: tuple[bool, ...]


def adjust_p_values(p_values, *, method: AdjustmentMethod = "holm", alpha: float = 0.05) -> AdjustedPValues:
    """Adjust a family of p-values (e.g. all features × conditions of one result set).

    Parameters
    ----------
    p_values : the raw p-values of every test in the family.
    method : ``holm`` controls the family-wise error rate; ``fdr_bh`` the false discovery rate.
    alpha : the level at which ``rejected`` is decided (adjusted p < alpha).
    """
    if method not in METHOD_NAMES:
        raise ValueError(f"unknown adjustment method {method!r}; expected one of {sorted(METHOD_NAMES)}")
    raw = tuple(float(p) for p in p_values)
    adjusted = tuple(_shared_adjustment(raw, method=method))
    return AdjustedPValues(method, alpha, len(raw), raw, adjusted, tuple(p < alpha for p in adjusted))
