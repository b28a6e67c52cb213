"""Multiple comparisons: Holm or Benjamini-Hochberg over a study's pool-vs-recommended tests."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from statsmodels.stats.multitest import multipletests

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
    """Adjust a family of p-values with statsmodels' ``multipletests``.

    Parameters
    ----------
    p_values : the raw p-values of every test in the family (e.g. all features × conditions).
    method : ``holm`` controls the family-wise error rate; ``fdr_bh`` the false discovery rate.
    alpha : the level at which ``rejected`` is decided.
    """
    if method not in METHOD_NAMES:
        raise ValueError(f"unknown adjustment method {method!r}; expected one of {sorted(METHOD_NAMES)}")
    raw = np.asarray(list(p_values), dtype=float)
    if raw.size == 0:
        return AdjustedPValues(method, alpha, 0, (), (), ())
    rejected, adjusted, _, _ = multipletests(raw, alpha=alpha, method=method)
    return AdjustedPValues(method, alpha, int(raw.size), tuple(raw.tolist()), tuple(adjusted.tolist()),
                           tuple(bool(r) for r in rejected))
