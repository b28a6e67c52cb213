"""The site's one format: what a reader sees for each kind of value."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd

from biaswh.dashboards.common.format import (
    cell,
    count,
    estimate,
    floor_note,
    floor_notes,
    interval,
    natural_order,
    p_value,
    percent,
    plural,
    points,
    sample_size,
    shared_decimals,
)
from biaswh.dashboards.common.html import table


def test_each_kind_of_value_has_one_spelling():
    assert percent(0.92857) == "92.9%" and percent(1) == "100.0%"
    assert count(1400) == "1,400" and points(12.345) == "+12.3"
    assert p_value(0.0) == "< 0.001" and p_value(0.0196) == "0.020" and p_value(0.5, equals=True) == "= 0.50"
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
    shown = html.split('<script type="application/json" class="table-data">')[0]  # the download holds values
    assert not any(word in shown for word in ("True", "<NA>", "None", "nan"))


def test_a_p_at_its_tests_floor_says_so_and_the_floor_is_named_once():
    # 6 paired queries, all changed: an exact sign-flip test cannot give less than 2 / 2**6
    floor = 2 / 2**6
    assert p_value(floor, floor=floor) == "0.031 (smallest possible)"
    assert p_value(0.5, floor=floor) == "0.50"
    assert p_value(floor, equals=True, floor=floor) == "= 0.031 (smallest possible)"
    # a floor finer than the printed resolution (or of 1: nothing changed) is not worth a word
    assert p_value(0.0004, floor=0.0004) == "< 0.001" and p_value(1.0, floor=1.0) == "1.0"
    assert p_value(None, floor=floor) == "–"
    assert floor_note(6, floor) == "6 paired queries: no p below 0.031 is possible"
    assert floor_note(8, floor, 6) == "8 paired queries (6 changed): no p below 0.031 is possible"
    assert floor_note(64, 2 / 2**64) == "" and floor_note(None, floor) == ""
    rows = [{"n_paired_queries": 6, "min_p": floor, "n_nonzero": 6}, {"n_paired_queries": 7, "min_p": 1 / 64}]
    assert floor_notes(rows) == (
        "6 paired queries: no p below 0.031 is possible; 7 paired queries: no p below 0.016 is possible."
    )


def test_every_page_and_card_formats_p_through_the_one_formatter():
    import pathlib

    import biaswh.dashboards as dashboards

    root = pathlib.Path(dashboards.__file__).parent
    sources = {path.relative_to(root).as_posix(): path.read_text(encoding="utf-8") for path in root.rglob("*.py")}
    assert not (root / "common" / "p_values.py").exists()
    # no second p formatter: no module defines one besides dashboards/common/format.py
    defining = sorted(name for name, code in sources.items() if "def p_value(" in code or "def p_text(" in code)
    assert defining == ["common/format.py"]


def test_a_p_column_of_any_table_reads_as_a_p_value():
    html = table(["pair", "p_exact", "p_holm", "p_method"], [[3, 0.0004, 0.031249, "exact"]])
    assert "<td>3</td><td>&lt; 0.001</td><td>0.031</td><td>exact</td>" in html


def test_an_interval_shares_its_estimates_unit_and_decimals():
    assert interval(0.3, 0.903, unit="percent") == "[30.0%, 90.3%]"
    assert interval(0, 2.5, unit="points") == "[+0.0, +2.5]"
    assert estimate(0.903, 0.3, 0.95) == "0.903 [0.300, 0.950]"
    assert estimate(12.34, 0.5, 25.0) == "12.3 [0.5, 25.0]"
    assert estimate(0.9, 0.3, 0.95, unit="percent") == "90.0% [30.0%, 95.0%]"
    assert interval(None, 1) == "[–]" and estimate(None, 0, 1) == "–"
    assert interval(-0.0001, 0.5, places=2) == "[0.00, 0.50]"  # never "-0.00"


def test_sample_sizes_round_up_counts_separate_thousands_and_nouns_agree():
    assert sample_size(95.7) == "96" and sample_size(96.0) == "96" and sample_size(1234.2) == "1,235"
    assert sample_size(None) == "–" and sample_size(float("inf")) == "∞"
    assert plural(1, "run") == "1 run" and plural(4, "run") == "4 runs" and plural(1400, "pair") == "1,400 pairs"
    assert plural(2, "breach", "breaches") == "2 breaches" and plural(0, "split") == "0 splits"
    assert cell(1234) == "1,234" and cell(np.int64(20000)) == "20,000"


def test_p_values_have_two_significant_digits():
    assert [p_value(p) for p in (0.0196, 0.25, 0.04999, 0.001, 0.00099, 1.0)] == [
        "0.020",
        "0.25",
        "0.050",
        "0.0010",
        "< 0.001",
        "1.0",
    ]


def test_a_table_shows_rates_as_percentages_and_ids_as_written():
    html = table(["pair_id", "recall_a", "n_pairs"], [[12345, 0.9, 1400]])
    assert "<td>12345</td><td>90.0%</td><td>1,400</td>" in html


def test_natural_order_and_shared_decimals():
    assert natural_order(["weat10", "weat2", "weat1", "weat2"]) == ["weat1", "weat2", "weat10"]
    assert shared_decimals(-0.0123, -0.154, 0.133) == 3 and shared_decimals(1.74, 1.62, 1.85) == 2
    assert estimate(-0.0123, -0.154, 0.133) == "-0.012 [-0.154, 0.133]"
