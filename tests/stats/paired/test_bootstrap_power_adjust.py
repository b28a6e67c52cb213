import math

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from biaswh.stats.multiple_comparisons import adjust_p_values
from biaswh.stats.paired.bootstrap import paired_recall_difference
from biaswh.stats.paired.mcnemar import mcnemar
from biaswh.stats.paired.power import pairs_needed, power_statement


def test_bootstrap_interval_is_seeded_and_centred_on_the_observed_difference():
    rng = np.random.default_rng(0)
    a = rng.random(300) < 0.7
    b = rng.random(300) < 0.6
    first = paired_recall_difference(a, b, seed=11)
    assert first == paired_recall_difference(a, b, seed=11)
    assert first.effect_size == pytest.approx(a.mean() - b.mean())
    assert first.ci_low < first.effect_size < first.ci_high
    # The bootstrap standard error agrees with the analytic paired one within 15%.
    analytic_se = np.std(a.astype(float) - b, ddof=0) / math.sqrt(300)
    assert (first.ci_high - first.ci_low) / 3.92 == pytest.approx(analytic_se, rel=0.15)


def test_bootstrap_refuses_fewer_than_2000_resamples():
    with pytest.raises(ValueError):
        paired_recall_difference([1, 0], [0, 1], seed=1, n_resamples=500)


@pytest.mark.parametrize("method", ["holm", "fdr_bh"])
def test_adjustment_matches_statsmodels(method):
    p = [0.01, 0.04, 0.03, 0.2, 0.001, 1.0]
    assert adjust_p_values(p, method=method) == pytest.approx(list(multipletests(p, method=method)[1]))


@pytest.mark.parametrize("alpha", [0.05, 0.01])
def test_power_formula_achieves_its_power_in_simulation(alpha):
    n, psi = 400, 0.15
    statement = power_statement(n, int(psi * n), alpha=alpha)
    gap = statement.detectable_gap
    rng = np.random.default_rng(2026)
    p_only_a, p_only_b = (psi + gap) / 2, (psi - gap) / 2
    rejections = 0
    for _ in range(2000):
        outcome = rng.choice(3, size=n, p=[p_only_a, p_only_b, 1 - psi])
        only_a, only_b = int((outcome == 0).sum()), int((outcome == 1).sum())
        rejections += mcnemar(only_a, only_b, n_pairs=n, variant="mid-p").p_value < alpha
    assert rejections / 2000 == pytest.approx(0.80, abs=0.06)
    assert pairs_needed(gap, psi, alpha=alpha) == pytest.approx(n, rel=1e-6)
    assert f"at α = {alpha:g}" in statement.sentence


def test_a_stricter_alpha_needs_a_larger_gap():
    assert power_statement(400, 60, alpha=0.01).detectable_gap > power_statement(400, 60, alpha=0.05).detectable_gap


def test_a_study_with_six_discordant_pairs_says_it_cannot_tell():
    statement = power_statement(200, 6, alpha=0.05)
    assert "cannot tell" in statement.sentence
    assert (
        statement.pairs_needed_for_target == pytest.approx(pairs_needed(0.02, 0.03, alpha=0.05))
        and statement.pairs_needed_for_target > 500
    )
