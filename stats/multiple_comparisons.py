"""Family-wise (Holm) or false-discovery-rate (Benjamini-Hochberg) adjustment of p-values.

The study's verdict policy (``[verdicts]``: which adjustment, at which alpha) is here too.

The policy lives here, below ``compute/``, because the recsys job adjusts its p-values
between the two dbt builds and must follow the same setting as the analysis steps.
:func:`adjust_family` records with the adjustment what a recsys result row needs: the
method, the family size and which tests stay significant.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from biaswh.warehouse.errors import UserError

AdjustMethod = Literal["holm", "fdr_bh"]
# The config spelling -> statsmodels' method name.
ADJUSTMENTS: dict[str, AdjustMethod] = {"holm": "holm", "bh": "fdr_bh"}
ADJUSTMENT_NAMES: dict[str, str] = {"holm": "Holm", "fdr_bh": "Benjamini-Hochberg"}


@dataclass(frozen=True)
class VerdictPolicy:
    """How a study decides significance: adjust within each family of tests, then adjusted p < alpha.

    ``method`` is statsmodels' name (``holm`` controls the family-wise error rate, ``fdr_bh``
    the false discovery rate, for exploratory families).
    """

    method: AdjustMethod = "holm"
    alpha: float = 0.05

    @property
    def name(self) -> str:
        """The adjustment as a page says it: "Holm" or "Benjamini-Hochberg"."""
        return ADJUSTMENT_NAMES[self.method]


DEFAULT_POLICY = VerdictPolicy()  # Holm at 0.05: a study without [verdicts]


def is_significant(p_adjusted: float, alpha: float) -> bool:
    """The one rule of every verdict: an adjusted p strictly below alpha (p = alpha is not significant)."""
    return p_adjusted < alpha


def verdict_policy(settings: dict, *, default_alpha: float = 0.05, where: str = "study config") -> VerdictPolicy:
    """The policy of a study's ``[verdicts]`` table (``adjustment = "holm"|"bh"``, ``alpha``).

    Parameters
    ----------
    settings : dict
        The study's parsed config tables (``study.settings``).
    default_alpha : float, default 0.05
        Alpha when ``[verdicts]`` sets none (e.g. ``[evaluation] alpha``).
    where : str
        The config file, for the error message.

    Returns
    -------
    VerdictPolicy
        The adjustment method and alpha.

    Raises
    ------
    UserError
        For an unknown adjustment, or an alpha outside (0, 1).
    """
    table = settings.get("verdicts") or {}
    adjustment = table.get("adjustment", "holm")
    if adjustment not in ADJUSTMENTS:
        raise UserError(f"{where}: [verdicts] adjustment must be 'holm' or 'bh', got {adjustment!r}")
    alpha = float(table.get("alpha", default_alpha))
    if not 0 < alpha < 1:
        raise UserError(f"{where}: [verdicts] alpha must be between 0 and 1 (exclusive), got {alpha}")
    return VerdictPolicy(ADJUSTMENTS[adjustment], alpha)


def adjust_p_values(p_values, *, method: AdjustMethod = "holm") -> list[float]:
    """Adjusted p-values, in input order.

    They equal statsmodels' ``multipletests`` to the bit (:func:`holm`, :func:`benjamini_hochberg`).

    The family is whatever the caller passes: for the dialect study, the highlighted k of
    one retriever and variant pair.

    Parameters
    ----------
    p_values : iterable of float
        The family's raw p-values.
    method : {"holm", "fdr_bh"}, default "holm"
        Holm (family-wise error rate) or Benjamini-Hochberg (false discovery rate).

    Returns
    -------
    list of float
        The adjusted p-values, in input order.

    Raises
    ------
    ValueError
        For a NaN p-value or an unknown method.
    """
    values = np.asarray(list(p_values), dtype=float)
    if values.size == 0:
        return []
    if np.isnan(values).any():
        raise ValueError("p-values must not be NaN")
    if method == "holm":
        return holm(values)
    if method == "fdr_bh":
        return benjamini_hochberg(values)
    raise ValueError(f"unknown adjustment method {method!r}; expected one of {sorted(METHOD_NAMES)}")


def holm(p_values: np.ndarray) -> list[float]:
    """Holm's step-down adjusted p-values in input order.

    They are statsmodels' ``multipletests(method="holm")``: the same operations in the same
    order, so the same numbers bit for bit (tests/stats/test_multiple_comparisons.py holds it
    to them). Not statsmodels' own: its Holm branch calls ``gc.collect()`` on every call, which
    walks every object in the process (with dbt's parsed project loaded, 0.1-2 s a call; a
    study adjusts tens of families).

    Parameters
    ----------
    p_values : numpy.ndarray
        The family's raw p-values.

    Returns
    -------
    list of float
        The adjusted p-values, in input order.
    """
    order = np.argsort(p_values)
    adjusted = np.maximum.accumulate(p_values[order] * np.arange(p_values.size, 0, -1))
    adjusted[adjusted > 1] = 1
    in_input_order = np.empty_like(adjusted)
    in_input_order[order] = adjusted
    return [float(p) for p in in_input_order]


def benjamini_hochberg(p_values: np.ndarray) -> list[float]:
    """Benjamini-Hochberg adjusted p-values in input order.

    They are statsmodels' ``multipletests(method="fdr_bh")``: the same operations in the same
    order, so the same numbers bit for bit (tests/stats/test_multiple_comparisons.py holds it
    to them). Ours so that a study does not import statsmodels for it (about 1 s of every
    process's start: the plugins import this module).

    Parameters
    ----------
    p_values : numpy.ndarray
        The family's raw p-values.

    Returns
    -------
    list of float
        The adjusted p-values, in input order.
    """
    order = np.argsort(p_values)
    ordered = np.take(p_values, order)
    adjusted = np.minimum.accumulate((ordered / (np.arange(1, ordered.size + 1) / float(ordered.size)))[::-1])[::-1]
    adjusted[adjusted > 1] = 1
    in_input_order = np.empty_like(adjusted)
    in_input_order[order] = adjusted
    return [float(p) for p in in_input_order]


METHOD_NAMES = {"holm": "Holm (family-wise error rate)", "fdr_bh": "Benjamini-Hochberg (false discovery rate)"}


@dataclass(frozen=True)
class AdjustedPValues:
    """Adjusted p-values, in the order of the raw ones, and which tests stay significant."""

    method: AdjustMethod
    alpha: float
    n_tests: int
    p_values: tuple[float, ...]
    p_values_adjusted: tuple[float, ...]
    rejected: tuple[bool, ...]


def adjust_family(p_values, *, method: AdjustMethod = "holm", alpha: float = 0.05) -> AdjustedPValues:
    """Adjust a family of p-values (e.g. all features × conditions of one result set).

    Parameters
    ----------
    p_values : iterable of float
        The raw p-values of every test in the family.
    method : {"holm", "fdr_bh"}, default "holm"
        ``holm`` controls the family-wise error rate; ``fdr_bh`` the false discovery rate.
    alpha : float, default 0.05
        The level at which ``rejected`` is decided (adjusted p < alpha).

    Returns
    -------
    AdjustedPValues
        The raw and adjusted p-values in input order, and which tests are rejected.

    Raises
    ------
    ValueError
        For an unknown method.
    """
    if method not in METHOD_NAMES:
        raise ValueError(f"unknown adjustment method {method!r}; expected one of {sorted(METHOD_NAMES)}")
    raw = tuple(float(p) for p in p_values)
    adjusted = tuple(adjust_p_values(raw, method=method))
    return AdjustedPValues(method, alpha, len(raw), raw, adjusted, tuple(is_significant(p, alpha) for p in adjusted))
