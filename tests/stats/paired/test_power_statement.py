"""McNemar's power (Connor 1987) against the formula written out, and the power statement word for word."""

from __future__ import annotations

import math
from statistics import NormalDist

import pytest

from biaswh.stats.paired.power import PowerStatement, detectable_gap, pairs_needed, power_statement


def _connor(delta: float, psi: float, alpha: float, power: float) -> float:
    z_alpha, z_power = NormalDist().inv_cdf(1 - alpha / 2), NormalDist().inv_cdf(power)
    return (z_alpha * math.sqrt(psi) + z_power * math.sqrt(psi - delta * delta)) ** 2 / (delta * delta)


@pytest.mark.parametrize(
    ("delta", "psi", "alpha", "power"), [(0.1, 0.2, 0.05, 0.8), (0.05, 0.15, 0.01, 0.9), (-0.3, 0.5, 0.1, 0.8)]
)
def test_pairs_needed_is_connors_formula(delta, psi, alpha, power):
    assert pairs_needed(delta, psi, alpha=alpha, power=power) == pytest.approx(_connor(delta, psi, alpha, power))


def test_no_gap_or_one_the_discordance_cannot_hold_needs_infinitely_many_pairs():
    assert pairs_needed(0.0, 0.2, alpha=0.05) == math.inf
    assert pairs_needed(0.5, 0.25, alpha=0.05) == math.inf  # delta² equal to psi exactly
    assert pairs_needed(-0.5, 0.2, alpha=0.05) == math.inf
    assert pairs_needed(0.4, 0.25, alpha=0.05) == pytest.approx(_connor(0.4, 0.25, 0.05, 0.8))


@pytest.mark.parametrize("power", [0.8, 0.9])
def test_the_detectable_gap_is_where_connors_n_equals_the_pairs(power):
    gap = detectable_gap(400, 0.15, alpha=0.05, power=power)
    assert _connor(gap, 0.15, 0.05, power) == pytest.approx(400, rel=1e-6)
    assert gap == pytest.approx({0.8: 0.0540927, 0.9: 0.0624470}[power], abs=1e-6)


def test_without_pairs_or_discordance_no_gap_is_detectable():
    assert detectable_gap(0, 0.2, alpha=0.05) == math.inf
    assert detectable_gap(400, 0.0, alpha=0.05) == math.inf
    assert detectable_gap(400, -0.1, alpha=0.05) == math.inf
    assert detectable_gap(10, 0.2, alpha=0.05) == pytest.approx(0.3509523, abs=1e-6)


def test_one_pair_can_detect_a_gap_at_a_lax_alpha_and_power():
    # z = 0.674 at alpha 0.5 and 0 at power 0.5: Connor's n at the largest gap is 0.45, under one pair.
    gap = detectable_gap(1, 0.5, alpha=0.5, power=0.5)
    assert _connor(gap, 0.5, 0.5, 0.5) == pytest.approx(1, rel=1e-6)


def _statement(n_pairs, n_discordant, gap, needed, sentence, *, alpha=0.05, power=0.8, target_gap=0.02):
    psi = n_discordant / n_pairs if n_pairs else 0.0
    return PowerStatement(n_pairs, n_discordant, psi, alpha, power, gap, target_gap, needed, sentence)


CANNOT_TELL = "this study cannot tell whether the variants differ: no recall gap its discordance allows"

STATEMENTS = [
    (
        dict(n_pairs=1, n_discordant=1, alpha=0.05),
        _statement(1, 1, math.inf, _connor(0.02, 1.0, 0.05, 0.8), f"With 1 discordant pair out of 1, {CANNOT_TELL} "
                   "(100.0 points at most) would be detected with 80% power at α = 0.05."),
    ),
    (  # no discordance: plan for one discordant pair in n
        dict(n_pairs=100, n_discordant=0, alpha=0.05),
        _statement(100, 0, math.inf, _connor(0.02, 0.01, 0.05, 0.8), f"With 0 discordant pairs out of 100, "
                   f"{CANNOT_TELL} (0.0 points at most) would be detected with 80% power at α = 0.05."),
    ),
    (
        dict(n_pairs=1, n_discordant=0, alpha=0.05),
        _statement(1, 0, math.inf, _connor(0.02, 1.0, 0.05, 0.8), f"With 0 discordant pairs out of 1, "
                   f"{CANNOT_TELL} (0.0 points at most) would be detected with 80% power at α = 0.05."),
    ),
    (
        dict(n_pairs=0, n_discordant=0, alpha=0.05),
        _statement(0, 0, math.inf, _connor(0.02, 1.0, 0.05, 0.8), f"With 0 discordant pairs out of 0, "
                   f"{CANNOT_TELL} (0.0 points at most) would be detected with 80% power at α = 0.05."),
    ),
    (  # a discordance below the target gap squared is planned at just above it
        dict(n_pairs=5000, n_discordant=1, alpha=0.05),
        _statement(5000, 1, 0.000560185, _connor(0.02, 0.02**2 * 1.0001, 0.05, 0.8), f"With 1 discordant pair "
                   f"out of 5000, {CANNOT_TELL} (0.0 points at most) would be detected with 80% power at α = 0.05."),
    ),
    (
        dict(n_pairs=5000, n_discordant=400, alpha=0.05),
        _statement(5000, 400, 0.0112037, _connor(0.02, 0.08, 0.05, 0.8), "With 400 discordant pairs out of 5000, "
                   "only a recall gap of 1.1 points or more would be detected with 80% power at α = 0.05; detecting "
                   "a 2-point gap would need about 1,568 pairs."),
    ),
    (
        dict(n_pairs=400, n_discordant=60, alpha=0.01, power=0.9, target_gap=0.03),
        _statement(400, 60, 0.0742377, _connor(0.03, 0.15, 0.01, 0.9), "With 60 discordant pairs out of 400, "
                   "only a recall gap of 7.4 points or more would be detected with 90% power at α = 0.01; detecting "
                   "a 3-point gap would need about 2,475 pairs. A non-significant result here is not evidence that "
                   "the variants perform alike.", alpha=0.01, power=0.9, target_gap=0.03),
    ),
    (
        dict(n_pairs=100, n_discordant=80, alpha=0.05, target_gap=0.6),
        _statement(100, 80, 0.2476387, _connor(0.6, 0.8, 0.05, 0.8), "With 80 discordant pairs out of 100, "
                   "only a recall gap of 24.8 points or more would be detected with 80% power at α = 0.05; detecting "
                   "a 60-point gap would need about 15 pairs. A non-significant result here is not evidence that "
                   "the variants perform alike.", target_gap=0.6),
    ),
]  # fmt: skip


@pytest.mark.parametrize(("arguments", "expected"), STATEMENTS)
def test_the_power_statement_in_numbers_and_words(arguments, expected):
    statement = power_statement(**arguments)
    assert statement.sentence == expected.sentence
    assert statement == PowerStatement(
        **{
            **expected.__dict__,
            "detectable_gap": pytest.approx(expected.detectable_gap, abs=1e-6),
            "pairs_needed_for_target": pytest.approx(expected.pairs_needed_for_target),
            "sentence": statement.sentence,
        }
    )


def test_whether_the_largest_gap_is_in_reach_is_judged_at_the_asked_power():
    # At alpha = 2 P(Z > 2) Connor's n at the largest gap is 4 plus a term in z_power of a few
    # millionths: below 4 at power 0.3 (z < 0), above it at 0.8, so 4 pairs reach it at 0.3 only.
    alpha = 2 * NormalDist().cdf(-2.0)
    gap = detectable_gap(4, 0.2, alpha=alpha, power=0.3)
    assert _connor(gap, 0.2, alpha, 0.3) == pytest.approx(4, rel=1e-6) and gap < math.sqrt(0.2)
    assert detectable_gap(4, 0.2, alpha=alpha, power=0.8) == math.inf
