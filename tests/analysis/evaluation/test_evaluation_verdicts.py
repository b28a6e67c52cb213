"""Evaluation alerts: one family per series (latency apart); significant only if its test and adjustment agree."""

from __future__ import annotations

import polars as pl
import pytest
from statsmodels.stats.multitest import multipletests

from biaswh.analysis.evaluation.steps import alert_verdicts
from biaswh.stats.multiple_comparisons import VerdictPolicy


def test_alerts_are_adjusted_within_their_series():
    alerts = pl.DataFrame(
        {
            "series_run_id": ["series-1"] * 4,
            "depends_on_machine": [False] * 4,
            "p_value": [0.01, 0.04, None, 0.03],
            # the test's own call (e.g. too few paired queries is never significant)
            "is_significant": [True, True, False, False],
        }
    )
    judged = alert_verdicts(alerts, policy=VerdictPolicy("holm", 0.05))
    expected = multipletests([0.01, 0.04, 0.03], method="holm")[1]
    assert judged["p_adjusted"].to_list()[:2] == pytest.approx(list(expected[:2]))
    assert judged["p_adjusted"].to_list()[:2] == pytest.approx([0.03, 0.06])
    assert judged["family_size"].to_list() == [3, 3, None, 3]
    # raw 0.04 is 0.06 after Holm; the last (0.03) was refused by its own test
    assert judged["is_significant"].to_list() == [True, False, False, False]
    assert judged["family"][0] == "the series' breaches"


def test_latency_alerts_are_a_family_of_their_own_so_the_machine_never_moves_another_verdict():
    quality = {"series_run_id": ["s"] * 2, "depends_on_machine": [False] * 2, "p_value": [0.02, 0.03]}
    latency = {"series_run_id": ["s"] * 2, "depends_on_machine": [True] * 2, "p_value": [0.001, 0.002]}
    alerts = pl.concat([pl.DataFrame(quality), pl.DataFrame(latency)]).with_columns(is_significant=True)
    judged = alert_verdicts(alerts, policy=VerdictPolicy("holm", 0.05))
    alone = alert_verdicts(pl.DataFrame(quality).with_columns(is_significant=True), policy=VerdictPolicy("holm", 0.05))
    assert judged["p_adjusted"].to_list()[:2] == pytest.approx(alone["p_adjusted"].to_list())
    assert judged["p_adjusted"].to_list()[:2] == pytest.approx(list(multipletests([0.02, 0.03], method="holm")[1]))
    assert judged["family_size"].to_list() == [2, 2, 2, 2]
    assert judged["family"].to_list()[2:] == ["the series' latency breaches (machine-dependent)"] * 2
