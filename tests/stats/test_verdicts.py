"""The verdict policy against statsmodels and scipy: families, Holm vs BH, two-rate tests, "highest"."""

from __future__ import annotations

import polars as pl
import pytest
from scipy.stats import fisher_exact
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import confint_proportions_2indep

from biaswh.stats.multiple_comparisons import VerdictPolicy, adjust_family, verdict_policy
from biaswh.stats.verdicts import (
    VERDICT_SCHEMA,
    Leader,
    RateComparison,
    compare_rates,
    highest,
    significance_count,
    with_verdicts,
)
from biaswh.warehouse.errors import UserError

# Holm and BH disagree on this family: Holm keeps only the first, BH keeps all four.
FAMILY_A = [0.01, 0.02, 0.03, 0.04]
FAMILY_B = [0.2, 0.001]


def _tests() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "embedding": ["a"] * 4 + ["b"] * 2 + ["b"],
            "test": ["t1", "t2", "t3", "t4", "t1", "t2", "t3"],
            "status": ["computed"] * 6 + ["insufficient coverage"],
            "p_value": [*FAMILY_A, *FAMILY_B, 0.0001],
        }
    )


def _judged(policy: VerdictPolicy) -> pl.DataFrame:
    return with_verdicts(
        _tests(),
        by=["embedding"],
        family_name=lambda key: f"embedding {key['embedding']}",
        policy=policy,
        member=pl.col("status") == "computed",
    )


def test_holm_within_each_family_equals_statsmodels():
    judged = _judged(VerdictPolicy("holm", 0.05))
    expected = [*multipletests(FAMILY_A, method="holm")[1], *multipletests(FAMILY_B, method="holm")[1]]
    assert judged["p_adjusted"][:6].to_list() == pytest.approx(expected)
    # by hand, so a swap of the method inside the policy cannot pass: Holm multiplies by 4, 3, 2, 1
    assert judged["p_adjusted"][:4].to_list() == pytest.approx([0.04, 0.06, 0.06, 0.06])
    assert judged["is_significant"].to_list() == [True, False, False, False, False, True, False]
    assert judged["family_size"].to_list() == [4, 4, 4, 4, 2, 2, None]
    assert judged["family"].to_list()[:6] == ["embedding a"] * 4 + ["embedding b"] * 2
    assert set(judged["adjustment"].to_list()[:6]) == {"Holm"}
    # a test outside every family (not computed) gets no adjusted p and is never significant
    assert judged.row(6, named=True)["p_adjusted"] is None


def test_bh_is_the_configured_alternative_and_differs_from_holm():
    judged = _judged(verdict_policy({"verdicts": {"adjustment": "bh"}}))
    expected = [*multipletests(FAMILY_A, method="fdr_bh")[1], *multipletests(FAMILY_B, method="fdr_bh")[1]]
    assert judged["p_adjusted"][:6].to_list() == pytest.approx(expected)
    assert judged["is_significant"].to_list()[:4] == [True, True, True, True]
    assert judged["adjustment"][0] == "Benjamini-Hochberg"


def test_the_policy_reads_the_study_config_and_refuses_bad_values():
    assert verdict_policy({}) == VerdictPolicy("holm", 0.05)
    assert verdict_policy({"verdicts": {"alpha": 0.01}}) == VerdictPolicy("holm", 0.01)
    assert verdict_policy({}, default_alpha=0.1).alpha == 0.1
    with pytest.raises(UserError, match=r"x.toml: \[verdicts\] adjustment must be 'holm' or 'bh'"):
        verdict_policy({"verdicts": {"adjustment": "bonferroni"}}, where="x.toml")
    with pytest.raises(UserError, match=r"\[verdicts\] alpha must be between 0 and 1"):
        verdict_policy({"verdicts": {"alpha": 5}})


def test_alpha_decides_on_the_adjusted_p():
    judged = _judged(VerdictPolicy("holm", 0.07))
    assert judged["is_significant"].to_list()[:4] == [True, True, True, True]


def test_an_adjusted_p_equal_to_alpha_is_not_significant():
    # one test alone: Holm leaves p as it is, so p = alpha exactly reaches the rule
    judged = with_verdicts(
        pl.DataFrame({"test": ["a", "b"], "p_value": [0.05, 0.01]}),
        by=["test"],
        family_name=lambda key: key["test"],
        policy=VerdictPolicy("holm", 0.05),
    )
    assert judged["p_adjusted"].to_list() == [0.05, 0.01]
    assert judged["is_significant"].to_list() == [False, True]
    assert judged["alpha"].to_list() == [0.05, 0.05]
    assert adjust_family([0.05], alpha=0.05).rejected == (False,)


def test_significance_count_names_the_family_its_size_the_adjustment_and_alpha():
    sentence = significance_count(2, 30, noun="WEAT tests", adjustment="Holm", family="embedding glove", alpha=0.01)
    assert sentence == "2 of 30 WEAT tests significant after Holm within embedding glove, α = 0.01"


def test_two_rates_are_compared_with_fisher_and_newcombe():
    result = compare_rates(18, 20, 6, 20)
    assert result.p_value == pytest.approx(fisher_exact([[18, 2], [6, 14]]).pvalue)
    low, high = confint_proportions_2indep(18, 20, 6, 20, method="newcomb")
    assert (result.ci_low, result.ci_high) == pytest.approx((low, high))
    assert result.difference == pytest.approx(0.6)


def test_equal_rates_are_a_tie_and_no_model_is_highest():
    # the demo's case: two models at 66.7% each (2 of 3 and 4 of 6)
    result = compare_rates(2, 3, 4, 6)
    assert result.p_value == pytest.approx(1.0)
    leader = highest({"demo-model-a": 2 / 3, "demo-model-b": 4 / 6}, lambda a, b: False)
    assert leader.verdict == "tie"


def test_a_leader_is_named_only_when_it_beats_every_other_member():
    rates = {"a": 0.9, "b": 0.3, "c": 0.85}
    only_against_b = highest(rates, lambda x, y: {x, y} == {"a", "b"})
    assert (only_against_b.verdict, only_against_b.leader, only_against_b.runner_up) == (
        "no evidence of a difference",
        "a",
        "c",
    )
    assert highest(rates, lambda x, y: True).verdict == "highest"


def test_the_study_schema_accepts_the_verdicts_table_and_refuses_other_adjustments(tmp_path):
    from biaswh.warehouse.settings.study_schema import check_config

    check_config(
        tmp_path / "s.toml", {"study": {"name": "s", "seed": 1}, "verdicts": {"adjustment": "bh", "alpha": 0.1}}
    )
    with pytest.raises(UserError, match=r"\[verdicts\]"):
        check_config(tmp_path / "s.toml", {"study": {"name": "s", "seed": 1}, "verdicts": {"adjustment": "bonferroni"}})
    with pytest.raises(UserError, match=r"unknown key 'alhpa'"):
        check_config(tmp_path / "s.toml", {"study": {"name": "s", "seed": 1}, "verdicts": {"alhpa": 0.1}})


def test_the_whole_comparison_is_fishers_two_sided_p_and_newcombes_interval():
    result = compare_rates(7, 9, 3, 11)
    low, high = confint_proportions_2indep(7, 9, 3, 11, compare="diff", method="newcomb")
    assert result == RateComparison(
        rate_a=7 / 9,
        rate_b=3 / 11,
        difference=7 / 9 - 3 / 11,
        ci_low=pytest.approx(low),
        ci_high=pytest.approx(high),
        p_value=pytest.approx(fisher_exact([[7, 2], [3, 8]], alternative="two-sided").pvalue),
        test="Fisher's exact test (two-sided); Newcombe hybrid score interval of the difference",
    )
    wald = confint_proportions_2indep(7, 9, 3, 11, compare="diff", method="wald")
    assert (result.ci_low, result.ci_high) != pytest.approx(wald)


@pytest.mark.parametrize("counts", [(0, 0, 1, 2), (1, 2, 0, 0), (0, -1, 0, 2)])
def test_a_rate_over_nothing_is_refused_by_name(counts):
    with pytest.raises(ValueError, match="^both rates need a positive denominator$"):
        compare_rates(*counts)


def test_a_rate_over_one_trial_is_compared():
    result = compare_rates(1, 1, 0, 1)
    assert (result.rate_a, result.rate_b, result.difference, result.p_value) == (1.0, 0.0, 1.0, 1.0)


def test_the_leader_in_every_case_with_its_runner_up():
    assert highest({"only": 0.4}, lambda x, y: False) == Leader("highest", "only", None)
    # equal rates: a tie, the first name first whatever the order given
    assert highest({"b": 0.5, "a": 0.5, "c": 0.1}, lambda x, y: True) == Leader("tie", "a", "b")
    asked = []
    leader = highest({"c": 0.2, "a": 0.9, "b": 0.6}, lambda x, y: asked.append((x, y)) or True)
    assert leader == Leader("highest", "a", "b") and asked == [("a", "b"), ("a", "c")]
    assert highest({"c": 0.2, "a": 0.9, "b": 0.6}, lambda x, y: y != "c") == Leader(
        "no evidence of a difference", "a", "b"
    )


def test_a_table_without_a_test_keeps_the_verdict_columns_types():
    untested = pl.DataFrame(
        {"embedding": ["a", "b"], "p_value": [None, None]}, schema={"embedding": pl.String, "p_value": pl.Float64}
    )
    judged = with_verdicts(untested, by=["embedding"], family_name=str, policy=verdict_policy({}))
    assert {name: judged.schema[name] for name in VERDICT_SCHEMA} == VERDICT_SCHEMA
    assert judged["is_significant"].to_list() == [False, False] and judged["family"].null_count() == 2
