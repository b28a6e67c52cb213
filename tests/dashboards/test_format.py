"""The site's one format: what a reader sees for each kind of value."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd

from dashboards.common.format import cell, count, p_value, percent, points
from dashboards.common.html import table


def test_each_kind_of_value_has_one_spelling():
    assert percent(0.92857) == "92.9%" and percent(1) == "100.0%"
    assert count(1400) == "1,400" and points(12.345) == "+12.3"
    assert p_value(0.0) == "< 0.001" and p_value(0.0195) == "0.0195" and p_value(0.5, equals=True) == "= 0.5"
    assert [cell(v) for v in (True, np.bool_(False), None, float("nan"), pd.NA, pd.NaT)] == [
        "yes",
        "no",
        "–",
        "–",
        "–",
        "–",
    ]
    assert cell(dt.datetime(2026, 11, 23, 14, 9, 59, 608906)) == "2026-11-23 14:09:59"
    assert cell(np.float64(0.123456)) == "0.123" and cell(np.int64(7)) == "7"


def test_a_table_never_prints_a_python_literal():
    html = table(["flag", "value", "when"], [[True, pd.NA, pd.Timestamp("2026-01-05 10:00:00.5")]])
    assert "<td>yes</td><td>–</td><td>2026-01-05 10:00:00</td>" in html
    assert not any(word in html for word in ("True", "<NA>", "None", "nan"))
