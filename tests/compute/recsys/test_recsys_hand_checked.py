"""The hand-checked post set of the recsys study (tests/compute/recsys/recsys_study.py): its numerical
condition is Cohen's d, Hedges' g and Welch's t by hand, its categorical and binary ones Cramér's V
over Pearson's chi-square (Yates for 2 x 2)."""

from __future__ import annotations

import duckdb
import numpy as np
import pytest
from scipy import stats

from tests.compute.recsys.recsys_study import HAND_LENGTH_POOL, HAND_LENGTH_RECOMMENDED, HAND_LINK, HAND_SET, HAND_TOPIC

pytestmark = pytest.mark.dbt


@pytest.fixture
def con(recsys_warehouse):
    connection = duckdb.connect(str(recsys_warehouse[0] / "warehouse.duckdb"), read_only=True)
    yield connection
    connection.close()


def _pearson_chi_square(table: np.ndarray, *, yates: bool) -> float:
    """Pearson's chi-square of a contingency table; Yates subtracts 0.5 from each |observed - expected|."""
    expected = table.sum(axis=1, keepdims=True) * table.sum(axis=0, keepdims=True) / table.sum()
    gap = np.abs(table - expected) - (0.5 if yates else 0.0)
    return float(np.sum(gap**2 / expected))


def _hand_row(con, feature: str) -> dict:
    return (
        con.execute(
            "select * from marts.fct_recsys_pool_vs_recommended where result_set = ? and feature = ?",
            [HAND_SET, feature],
        )
        .pl()
        .to_dicts()[0]
    )


def test_numerical_condition_is_cohens_d_hedges_g_and_welch_by_hand(con):
    row = _hand_row(con, "text_length")
    rec, pool = np.array(HAND_LENGTH_RECOMMENDED), np.array(HAND_LENGTH_POOL)
    n1, n2 = rec.size, pool.size
    var1, var2 = np.sum((rec - rec.mean()) ** 2) / (n1 - 1), np.sum((pool - pool.mean()) ** 2) / (n2 - 1)
    d = (rec.mean() - pool.mean()) / np.sqrt(((n1 - 1) * var1 + (n2 - 1) * var2) / (n1 + n2 - 2))
    se1, se2 = var1 / n1, var2 / n2
    t = (rec.mean() - pool.mean()) / np.sqrt(se1 + se2)
    df = (se1 + se2) ** 2 / (se1**2 / (n1 - 1) + se2**2 / (n2 - 1))
    g = (1 - 3 / (4 * (n1 + n2) - 9)) * d
    g_se = (1 - 3 / (4 * (n1 + n2) - 9)) * np.sqrt((n1 + n2) / (n1 * n2) + d**2 / (2 * (n1 + n2)))
    assert (row["status"], row["metric"], row["n_recommended"], row["n_pool"]) == ("ok", "Cohen's d", 12, 18)
    assert row["bias"] == pytest.approx(d, rel=1e-12) and d > 1  # recommended posts are clearly longer
    assert row["statistic"] == pytest.approx(t, rel=1e-12)
    assert row["degrees_of_freedom"] == pytest.approx(df, rel=1e-12)
    assert row["p_value"] == pytest.approx(2 * stats.t.sf(abs(t), df), rel=1e-9)
    assert row["hedges_g"] == pytest.approx(g, rel=1e-12)
    assert (row["ci_low"], row["ci_high"]) == (
        pytest.approx(g - 1.959963984540054 * g_se, rel=1e-9),
        pytest.approx(g + 1.959963984540054 * g_se, rel=1e-9),
    )


@pytest.mark.parametrize(
    ("feature", "counts", "yates"),
    [
        (
            "topic",
            [[HAND_TOPIC["pool"][t], HAND_TOPIC["recommended"][t]] for t in ("politics", "sports", "tech")],
            False,
        ),
        (
            "has_link",
            [[18 - HAND_LINK["pool"], 12 - HAND_LINK["recommended"]], [HAND_LINK["pool"], HAND_LINK["recommended"]]],
            True,
        ),
    ],
)
def test_categorical_and_binary_conditions_are_cramers_v_by_hand(con, feature, counts, yates):
    row = _hand_row(con, feature)
    table = np.array(counts, dtype=float)  # rows: values; columns: pool, recommended
    chi_square = _pearson_chi_square(table, yates=yates)
    dof = (table.shape[0] - 1) * (table.shape[1] - 1)
    assert (row["status"], row["metric"], row["yates_applied"]) == ("ok", "Cramér's V", yates)
    assert row["statistic"] == pytest.approx(chi_square, rel=1e-12)
    assert row["degrees_of_freedom"] == dof
    assert row["bias"] == pytest.approx(np.sqrt(chi_square / table.sum()), rel=1e-12)  # min(rows, 2) - 1 = 1
    assert row["p_value"] == pytest.approx(stats.chi2.sf(chi_square, dof), rel=1e-9)
    assert row["p_value"] < 0.05
