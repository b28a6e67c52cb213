"""The verdict policy of ``[verdicts]``, the significance rule and the adjustments' refusals, word for word.

Without polars: these are the guard tests of ``stats/multiple_comparisons.py`` that mutmut's forked
workers can run (a worker forked from a process that imported polars hangs in polars' thread
pool; docs/testing.md).
"""

from __future__ import annotations

import math
from decimal import Decimal

import pytest
from statsmodels.stats.multitest import multipletests

from biaswh.stats.multiple_comparisons import (
    DEFAULT_POLICY,
    AdjustedPValues,
    VerdictPolicy,
    adjust_family,
    adjust_p_values,
    is_significant,
    verdict_policy,
)
from biaswh.warehouse.errors import UserError


def test_a_p_below_alpha_is_significant_and_one_equal_to_it_is_not():
    assert is_significant(0.049, 0.05) and not is_significant(0.05, 0.05) and not is_significant(0.051, 0.05)
    assert adjust_family([0.05, 0.0499], alpha=0.05).rejected == (False, False)  # Holm: 0.05 and 0.0998
    assert adjust_family([0.05], alpha=0.05).rejected == (False,)


def test_the_policy_defaults_to_holm_at_the_default_alpha():
    assert DEFAULT_POLICY == VerdictPolicy() == VerdictPolicy("holm", 0.05)
    assert verdict_policy({}) == VerdictPolicy("holm", 0.05)
    assert verdict_policy({"verdicts": {}}, default_alpha=0.1) == VerdictPolicy("holm", 0.1)
    assert verdict_policy({"verdicts": None}, default_alpha=0.2) == VerdictPolicy("holm", 0.2)
    assert verdict_policy({"verdicts": {"alpha": 0.01}}, default_alpha=0.1) == VerdictPolicy("holm", 0.01)


@pytest.mark.parametrize(
    ("spelling", "method", "name"), [("holm", "holm", "Holm"), ("bh", "fdr_bh", "Benjamini-Hochberg")]
)
def test_each_adjustment_is_read_by_its_config_spelling_and_named_as_a_page_says_it(spelling, method, name):
    policy = verdict_policy({"verdicts": {"adjustment": spelling, "alpha": 0.02}})
    assert policy == VerdictPolicy(method, 0.02) and policy.name == name
    assert type(policy.alpha) is float


@pytest.mark.parametrize("alpha", [0.0, 1.0, -0.1, 5, math.nan])
def test_an_alpha_outside_zero_to_one_is_refused_naming_the_file_and_the_value(alpha):
    message = f"^x.toml: \\[verdicts\\] alpha must be between 0 and 1 \\(exclusive\\), got {float(alpha)}$"
    with pytest.raises(UserError, match=message):
        verdict_policy({"verdicts": {"alpha": alpha}}, where="x.toml")
    with pytest.raises(UserError, match="^study config: "):
        verdict_policy({"verdicts": {"alpha": alpha}})


def test_an_alpha_just_inside_the_bounds_is_kept():
    assert verdict_policy({"verdicts": {"alpha": 1e-9}}).alpha == 1e-9
    assert verdict_policy({"verdicts": {"alpha": 0.999}}).alpha == 0.999


@pytest.mark.parametrize("adjustment", ["bonferroni", "HOLM", "fdr_bh", None])
def test_an_unknown_adjustment_is_refused_with_the_spellings_it_accepts(adjustment):
    message = f"^x.toml: \\[verdicts\\] adjustment must be 'holm' or 'bh', got {adjustment!r}$"
    with pytest.raises(UserError, match=message):
        verdict_policy({"verdicts": {"adjustment": adjustment}}, where="x.toml")


def test_no_p_value_gives_no_adjusted_one_and_a_nan_is_refused():
    assert adjust_p_values([]) == [] and adjust_p_values([], method="fdr_bh") == []
    assert adjust_p_values([0.3]) == [0.3] and adjust_p_values([0.3], method="fdr_bh") == [0.3]
    with pytest.raises(ValueError, match="^p-values must not be NaN$"):
        adjust_p_values([0.1, math.nan])


def test_an_unknown_method_is_refused_with_the_known_ones():
    known = r"\['fdr_bh', 'holm'\]"
    with pytest.raises(ValueError, match=f"^unknown adjustment method 'bonferroni'; expected one of {known}$"):
        adjust_p_values([0.1], method="bonferroni")
    with pytest.raises(ValueError, match=f"^unknown adjustment method 'bh'; expected one of {known}$"):
        adjust_family([0.1], method="bh")


@pytest.mark.parametrize("method", ["holm", "fdr_bh"])
def test_a_family_holds_its_method_level_size_raw_and_adjusted_p_values(method):
    raw = [0.04, 0.001, 0.3, 0.02]
    adjusted = tuple(float(p) for p in multipletests(raw, method=method)[1])
    family = adjust_family((p for p in raw), method=method, alpha=0.03)
    assert family == AdjustedPValues(method, 0.03, 4, tuple(raw), adjusted, tuple(p < 0.03 for p in adjusted))
    assert adjust_family(raw).method == "holm" and adjust_family(raw).alpha == 0.05


@pytest.mark.parametrize("method", ["holm", "fdr_bh"])
def test_p_values_given_as_decimals_are_adjusted_as_numbers(method):
    # DuckDB hands a DECIMAL column to Python as decimal.Decimal, which np.isnan cannot read.
    raw = ["0.012", "0.3", "0.04"]
    assert adjust_p_values([Decimal(p) for p in raw], method=method) == adjust_p_values(
        [float(p) for p in raw], method=method
    )


@pytest.mark.parametrize("method", ["holm", "fdr_bh"])
def test_a_p_one_float_above_one_is_adjusted_to_one_as_statsmodels_does(method):
    # A two-sided p doubled from a one-sided one can round to 1.0000000000000002.
    raw = [math.nextafter(1.0, 2.0), 0.2, 0.01]
    assert adjust_p_values(raw, method=method) == multipletests(raw, method=method)[1].tolist()
    assert adjust_p_values(raw, method=method)[0] == 1.0
