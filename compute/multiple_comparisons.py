"""Family-wise (Holm) or false-discovery-rate (Benjamini-Hochberg) adjustment of p-values."""

from __future__ import annotations

from typing import Literal

import numpy as np
from statsmodels.stats.multitest import multipletests

AdjustMethod = Literal["holm", "fdr_bh"]


def adjust_p_values(p_values, *, method: AdjustMethod = "holm") -> list[float]:
    """Adjusted p-values, in input order (statsmodels' ``multipletests``).

    The family is whatever the caller passes: for the dialect study, retrievers ×
    highlighted k for one variant pair.
    """
    values = np.asarray(list(p_values), dtype=float)
    if values.size == 0:
        return []
    if np.isnan(values).any():
        raise ValueError("p-values must not be NaN")
    return [float(p) for p in multipletests(values, method=method)[1]]
