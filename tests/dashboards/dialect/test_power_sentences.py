"""The dialect page tells planning power from power at the observed discordance."""

from __future__ import annotations

from biaswh.dashboards.dialect.power_sentences import power_sentences, reachable_gap


def test_a_gap_above_the_observed_discordance_is_not_detectable():
    # 6 discordant pairs of 200: the formula's 3.41 points exceed the 3-point discordance
    assert reachable_gap({"detectable_gap_pp": 3.41, "discordance_rate": 0.03}) is None
    assert reachable_gap({"detectable_gap_pp": 0.83, "discordance_rate": 0.0175}) == 0.83
    assert reachable_gap({"detectable_gap_pp": None, "discordance_rate": 0.01}) is None


def test_the_note_states_planning_power_for_the_studys_pairs():
    note = power_sentences(200, alpha=0.05)
    assert "200 pairs detect with 80% power (two-sided, α = 0.05) a recall gap of 4.4 points at 5.0%" in note
    assert "7.0 points at 12.5%" in note and "<b>Power at the observed discordance</b>" in note
    assert "α = 0.01" in power_sentences(200, alpha=0.01) and power_sentences(0, alpha=0.05) == ""
