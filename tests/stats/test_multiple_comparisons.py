"""Holm and Benjamini-Hochberg, checked against their step-wise definitions."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from biaswh.stats.multiple_comparisons import adjust_family, adjust_p_values


def _holm(p):
    order = np.argsort(p)
    m, adjusted, running = len(p), np.empty(len(p)), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def _benjamini_hochberg(p):
    order = np.argsort(p)[::-1]
    m, adjusted, running = len(p), np.empty(len(p)), 1.0
    for position, i in enumerate(order):
        rank = m - position
        running = min(running, p[i] * m / rank)
        adjusted[i] = running
    return adjusted


P_VALUES = [0.001, 0.04, 0.03, 0.2, 0.012, 0.9, 0.0004]


@pytest.mark.parametrize("method, reference", [("holm", _holm), ("fdr_bh", _benjamini_hochberg)])
def test_adjusted_p_values_follow_the_definition_in_input_order(method, reference):
    result = adjust_family(P_VALUES, method=method)
    assert result.p_values_adjusted == pytest.approx(reference(np.array(P_VALUES)).tolist())
    assert result.rejected == tuple(p < 0.05 for p in result.p_values_adjusted)
    assert result.n_tests == 7 and result.method == method
    assert all(a >= p for a, p in zip(result.p_values_adjusted, P_VALUES))


def test_bh_rejects_at_least_what_holm_rejects():
    holm, bh = adjust_family(P_VALUES, method="holm"), adjust_family(P_VALUES, method="fdr_bh")
    assert sum(bh.rejected) >= sum(holm.rejected)
    assert sum(holm.rejected) == 2  # 0.0004·7 and 0.001·6 pass; 0.012·5 = 0.06 stops Holm


def test_empty_family_and_unknown_method():
    assert adjust_family([]).n_tests == 0
    with pytest.raises(ValueError, match="unknown adjustment method"):
        adjust_family([0.1], method="bonferroni_typo")


@pytest.mark.parametrize("method", ["holm", "fdr_bh"])
@pytest.mark.parametrize("size", [1, 2, 7, 60])
def test_holm_and_bh_equal_statsmodels_bit_for_bit(size, method):
    # Ties, p-values of 1 and adjusted values clipped at 1, as study families give them.
    p = np.random.default_rng(size).choice([0.0312, 0.25, 1.0, 0.5, 0.001, 0.049], size=size)
    p[: size // 3] = np.random.default_rng(1).uniform(0, 0.1, size // 3)
    assert adjust_p_values(p, method=method) == multipletests(p, method=method)[1].tolist()
