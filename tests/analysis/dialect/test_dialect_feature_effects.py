"""Per-feature attribution (analysis.dialect_feature_effects) on the demo site, against scipy and statsmodels.

No real data: the demo rule-variant study (studies/demo_rule_variants.toml) writes the table
into the session's demo warehouse. Every row's delta is its discordant counts over its pairs,
its exact McNemar p is scipy's two-sided binomial test on the discordant pairs, and p_holm is
statsmodels' Holm over the single rules of each (retriever, pair set, variant A, k).
"""

from __future__ import annotations

import duckdb
import numpy as np
import polars as pl
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from biaswh.analysis.dialect.feature_effects import _holm_over_rules, _verdicts_over_rules
from biaswh.stats.multiple_comparisons import VerdictPolicy
from biaswh.stats.paired.score_interval import paired_difference_interval

FAMILY = ["retriever", "pair_set", "variant_a", "k", "is_all_rules"]


def check_feature_effects(effects: pl.DataFrame) -> int:
    """Assert every row against the oracles; return the number of single-rule rows tested by Holm."""
    assert effects.height > 0
    for row in effects.iter_rows(named=True):
        discordant = row["only_a"] + row["only_b"]
        assert row["n_discordant"] == discordant
        assert row["delta_pp"] == pytest.approx(100 * (row["only_a"] - row["only_b"]) / row["n_pairs"], abs=1e-9)
        expected = 1.0 if discordant == 0 else stats.binomtest(row["only_a"], discordant, 0.5).pvalue
        assert row["p_exact"] == pytest.approx(expected, abs=1e-12), row["rule"]
        score = paired_difference_interval(row["both_hit"], row["only_a"], row["only_b"], row["neither"])
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((100 * score.ci_low, 100 * score.ci_high), abs=1e-9)
        assert row["ci_method"].startswith("Newcombe hybrid score")
        # the demo study sets no [verdicts]: Holm at 0.05, and is_significant is the policy's rule
        assert (row["adjustment"], row["alpha"]) == ("Holm", 0.05)
        assert row["is_significant"] == (row["p_adjusted"] < 0.05)
    in_families = 0
    for _, family in effects.group_by(FAMILY):
        holm = multipletests(family["p_exact"].to_numpy(), method="holm")[1]
        np.testing.assert_allclose(family["p_holm"].to_numpy(), holm, rtol=0, atol=1e-12)
        np.testing.assert_allclose(family["p_adjusted"].to_numpy(), holm, rtol=0, atol=1e-12)
        assert set(family["family_size"]) == {family.height}
        in_families += family.height if family.height > 1 else 0
    return in_families


def test_feature_effects_match_scipy_and_statsmodels(demo_site):
    con = duckdb.connect(str(demo_site.parent / "warehouse.duckdb"), read_only=True)
    try:
        effects = con.execute("select * from analysis.dialect_feature_effects").pl()
    finally:
        con.close()
    assert check_feature_effects(effects) > 0  # some families have several rules, so Holm is exercised
    assert set(effects.filter(~pl.col("is_all_rules"))["rule"]) >= {"copula_deletion", "g_dropping", "no_inversion"}


def test_holm_over_rules_is_holm_not_bh():
    # The demo's p-values are too alike for Holm and BH to differ, so a hand-made family shows it.
    family = pl.DataFrame(
        {
            "retriever": ["bm25"] * 3 + ["bm25"],
            "pair_set": ["p"] * 4,
            "variant_a": ["sae"] * 4,
            "k": [1] * 4,
            "is_all_rules": [False, False, False, True],
            "p_exact": [0.01, 0.02, 0.03, 0.02],
        }
    )
    out = _holm_over_rules(family)
    expected = multipletests([0.01, 0.02, 0.03], method="holm")[1]
    assert out["p_holm"].to_list()[:3] == pytest.approx(list(expected))  # 0.03, 0.04, 0.04
    assert out["p_holm"].to_list()[:3] != pytest.approx(list(multipletests([0.01, 0.02, 0.03], method="fdr_bh")[1]))
    assert out["p_holm"][3] == 0.02  # all rules together: a family of one, unadjusted


def test_the_rules_follow_the_studys_adjustment_and_alpha():
    family = pl.DataFrame(
        {
            "retriever": ["bm25"] * 4,
            "pair_set": ["p"] * 4,
            "variant_a": ["sae"] * 4,
            "k": [1] * 4,
            "is_all_rules": [False, False, False, True],
            "p_exact": [0.01, 0.02, 0.03, 0.02],
        }
    )
    judged = _holm_over_rules(_verdicts_over_rules(family, VerdictPolicy("fdr_bh", 0.035)))
    bh = multipletests([0.01, 0.02, 0.03], method="fdr_bh")[1]  # 0.03 each
    assert judged["p_adjusted"].to_list()[:3] == pytest.approx(list(bh))
    assert judged["adjustment"].to_list() == ["Benjamini-Hochberg"] * 4
    assert judged["alpha"].to_list() == [0.035] * 4
    assert judged["is_significant"].to_list() == [True, True, True, True]
    assert judged["family_size"].to_list() == [3, 3, 3, 1]
    # Holm stays beside it for old readers, and would have kept only the first rule at this alpha
    assert judged["p_holm"].to_list()[:3] == pytest.approx([0.03, 0.04, 0.04])
    strict = _verdicts_over_rules(family, VerdictPolicy("holm", 0.01))
    assert strict["is_significant"].to_list() == [False, False, False, False]  # 0.03 is not below 0.01
