"""Cramér's V from Pearson's chi-square test of independence, and Bergsma's bias-corrected V.

V = sqrt(chi² / (n · (min(rows, columns) - 1))), between 0 and 1 and without direction, as
scipy's ``contingency.association(method="cramer")`` computes it. The chi-square is scipy's
``chi2_contingency``; with ``yates`` it applies Yates' continuity correction, which scipy makes
only when the table has one degree of freedom (2×2), and the corrected chi-square then feeds
both V and the p-value (so small differences in a 2×2 table give exactly V = 0 and p = 1).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from biaswh.warehouse.deferred_modules import scipy_stats


@dataclass(frozen=True)
class CramersVResult:
    """Cramér's V of a contingency table with its chi-square test.

    Attributes
    ----------
    v : Cramér's V, from the (possibly corrected) chi-square.
    bias_corrected_v : Bergsma's (2013) bias-corrected V.
    statistic, degrees_of_freedom : the chi-square and its degrees of freedom.
    p_value : the chi-square test's p; 1 where scipy's is undefined.
    n : the table's total count.
    yates_applied : whether Yates' continuity correction changed the chi-square (2×2 only).
    variant : the exact test and options used.
    """

    v: float
    bias_corrected_v: float
    statistic: float
    degrees_of_freedom: float
    p_value: float
    n: int
    yates_applied: bool
    variant: str


def contingency_table(groups: Sequence[Sequence]) -> np.ndarray:
    """Counts of each value (rows, sorted as text) in each group (columns, in the order given).

    Parameters
    ----------
    groups : sequence of sequences
        The values of each group; values are compared as text.

    Returns
    -------
    numpy.ndarray
        An integer table of one row per value and one column per group.
    """
    columns = [[str(v) for v in group] for group in groups]
    values = sorted({v for column in columns for v in column})
    index = {v: i for i, v in enumerate(values)}
    table = np.zeros((len(values), len(columns)), dtype=np.int64)
    for column, group in enumerate(columns):
        for value in group:
            table[index[value], column] += 1
    return table


def bias_corrected_cramers_v(chi_square: float, table: np.ndarray) -> float:
    """Bergsma's (2013) bias-corrected Cramér's V for a table with chi-square ``chi_square``.

    Parameters
    ----------
    chi_square : float
        The table's chi-square statistic.
    table : numpy.ndarray
        The contingency table (for its total and its shape).

    Returns
    -------
    float
        The corrected V, 0 where the corrected table has no degree of freedom left.
    """
    n = table.sum()
    rows, columns = table.shape
    phi_squared = max(0.0, chi_square / n - (rows - 1) * (columns - 1) / (n - 1))
    rows_corrected = rows - (rows - 1) ** 2 / (n - 1)
    columns_corrected = columns - (columns - 1) ** 2 / (n - 1)
    denominator = min(rows_corrected - 1, columns_corrected - 1)
    return 0.0 if denominator <= 0 else math.sqrt(phi_squared / denominator)


def variant_name(*, yates: bool) -> str:
    """The words for the test :func:`cramers_v_chi_square` runs with or without ``yates``.

    Parameters
    ----------
    yates : bool
        Whether Yates' continuity correction is asked for.

    Returns
    -------
    str
        E.g. "Pearson chi-square test of independence (value × group), Yates' ... on 2×2 tables".
    """
    return "Pearson chi-square test of independence (value × group)" + (
        ", Yates' continuity correction on 2×2 tables" if yates else ", no continuity correction"
    )


def cramers_v_chi_square(table: np.ndarray, *, yates: bool = True) -> CramersVResult:
    """Cramér's V and the chi-square test of independence of ``table``.

    Parameters
    ----------
    table : numpy.ndarray
        A contingency table with at least two rows and two columns.
    yates : bool, default True
        Apply Yates' continuity correction to 2×2 tables.

    Returns
    -------
    CramersVResult
        V, the bias-corrected V, the chi-square, its degrees of freedom and p.

    Raises
    ------
    ValueError
        From scipy, e.g. when an expected frequency is zero.
    """
    test = scipy_stats.chi2_contingency(table, correction=yates)
    n = int(table.sum())
    return CramersVResult(
        v=float(math.sqrt(test.statistic / (n * (min(table.shape) - 1)))),
        bias_corrected_v=bias_corrected_cramers_v(float(test.statistic), table),
        statistic=float(test.statistic),
        degrees_of_freedom=float(test.dof),
        p_value=1.0 if math.isnan(test.pvalue) else float(test.pvalue),
        n=n,
        yates_applied=bool(yates and test.dof == 1),
        variant=variant_name(yates=yates),
    )
