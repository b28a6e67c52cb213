"""Evaluation alerts: the family is the series; an alert is significant only if its test and the adjustment agree."""

from __future__ import annotations

import polars as pl
import pytest
from statsmodels.stats.multitest import multipletests

from analysis.evaluation.steps import alert_verdicts
from stats.multiple_comparisons import VerdictPolicy


def test_alerts_are_adjusted_within_their_series():
    alerts = pl.DataFrame(
        {
            "series_run_id": ["series-1"] * 4,
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
    assert judged["family"][0] == "the alert series series-1"
