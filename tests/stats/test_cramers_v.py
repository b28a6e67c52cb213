"""Cramér's V and the chi-square test, checked against scipy and Bergsma's definition."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import chi2_contingency
from scipy.stats.contingency import association

from biaswh.stats.cramers_v import bias_corrected_cramers_v, contingency_table, cramers_v_chi_square

THREE_BY_TWO = np.array([[50, 15], [30, 20], [20, 15]])
TWO_BY_TWO = np.array([[70, 20], [30, 20]])


def test_contingency_table_has_values_as_rows_and_groups_as_columns_in_order():
    table = contingency_table([["a", "a", "c"], ["b", "a", "b"]])
    assert table.tolist() == [[2, 1], [0, 2], [1, 0]]  # rows a, b, c


@pytest.mark.parametrize("table", [THREE_BY_TWO, TWO_BY_TWO])
@pytest.mark.parametrize("yates", [False, True])
def test_v_is_scipys_cramer_association_and_p_is_chi2_contingency(table, yates):
    result = cramers_v_chi_square(table, yates=yates)
    assert result.v == pytest.approx(association(table, method="cramer", correction=yates))
    reference = chi2_contingency(table, correction=yates)
    assert (result.statistic, result.degrees_of_freedom, result.p_value) == pytest.approx(
        (reference.statistic, reference.dof, reference.pvalue)
    )
    assert result.n == table.sum()


def test_yates_applies_only_to_two_by_two_tables():
    corrected, plain = cramers_v_chi_square(TWO_BY_TWO), cramers_v_chi_square(TWO_BY_TWO, yates=False)
    assert corrected.yates_applied is True and plain.yates_applied is False
    assert corrected.v < plain.v and corrected.p_value > plain.p_value
    assert cramers_v_chi_square(THREE_BY_TWO).yates_applied is False
    assert cramers_v_chi_square(THREE_BY_TWO).v == pytest.approx(cramers_v_chi_square(THREE_BY_TWO, yates=False).v)
    assert "Yates" in corrected.variant and "no continuity correction" in plain.variant


def test_yates_turns_a_tiny_two_by_two_difference_into_exactly_v_0_and_p_1():
    # |observed - expected| <= 0.5 in every cell: the corrected chi-square is 0.
    result = cramers_v_chi_square(np.array([[91, 45], [9, 5]]))
    assert (result.v, result.p_value) == (0.0, 1.0)


def test_bias_corrected_v_follows_bergsma_and_is_smaller():
    result = cramers_v_chi_square(THREE_BY_TWO, yates=False)
    n, r, k = 150, 3, 2
    phi2 = max(0.0, result.statistic / n - (r - 1) * (k - 1) / (n - 1))
    expected = math.sqrt(phi2 / min(k - (k - 1) ** 2 / (n - 1) - 1, r - (r - 1) ** 2 / (n - 1) - 1))
    assert result.bias_corrected_v == pytest.approx(expected)
    assert result.bias_corrected_v < result.v
    assert bias_corrected_cramers_v(0.0, np.array([[10, 10], [10, 10]])) == 0.0


THREE_BY_FOUR = np.array([[20, 15, 10, 5], [10, 12, 14, 16], [8, 9, 10, 30]])


def _bergsma(chi_square: float, table: np.ndarray) -> float:
    n, (r, k) = table.sum(), table.shape
    phi2 = max(0.0, chi_square / n - (r - 1) * (k - 1) / (n - 1))
    return math.sqrt(phi2 / min(r - (r - 1) ** 2 / (n - 1) - 1, k - (k - 1) ** 2 / (n - 1) - 1))


@pytest.mark.parametrize("table", [THREE_BY_FOUR, THREE_BY_FOUR.T, THREE_BY_FOUR[:2], THREE_BY_FOUR[:2].T])
def test_v_and_bergsmas_v_on_tables_wider_than_two_columns_either_way(table):
    result = cramers_v_chi_square(table)
    assert result.v == pytest.approx(association(table, method="cramer"))
    assert result.bias_corrected_v == pytest.approx(_bergsma(result.statistic, table)) and result.bias_corrected_v > 0
    assert result.n == table.sum() and result.degrees_of_freedom == (table.shape[0] - 1) * (table.shape[1] - 1)


@pytest.mark.parametrize("table", [[[1, 0], [0, 1]], [[1, 0, 0], [0, 1, 0], [0, 0, 1]]])
def test_bergsmas_v_is_0_where_the_corrected_table_has_no_degree_of_freedom(table):
    # n no larger than the number of columns: k - (k - 1)^2 / (n - 1) - 1 is 0
    assert bias_corrected_cramers_v(2.0, np.array(table)) == 0.0
    assert bias_corrected_cramers_v(float(len(table)), np.array(table)) == 0.0


def test_the_variant_names_the_test_and_its_correction():
    assert cramers_v_chi_square(TWO_BY_TWO).variant == (
        "Pearson chi-square test of independence (value × group), Yates' continuity correction on 2×2 tables"
    )
    assert cramers_v_chi_square(TWO_BY_TWO, yates=False).variant == (
        "Pearson chi-square test of independence (value × group), no continuity correction"
    )


def test_the_table_holds_integer_counts():
    table = contingency_table([[1, 2, 2], [2.0, 3]])  # values compared as text: "2" and "2.0" differ
    assert table.dtype == np.int64 and table.tolist() == [[1, 0], [2, 0], [0, 1], [0, 1]]
