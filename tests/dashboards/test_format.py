"""The site's one format: what a reader sees for each kind of value."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd

from dashboards.common.format import cell, count, floor_note, floor_notes, p_value, percent, points
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


def test_a_p_at_its_tests_floor_says_so_and_the_floor_is_named_once():
    # 6 paired queries, all changed: an exact sign-flip test cannot give less than 2 / 2**6
    floor = 2 / 2**6
    assert p_value(floor, floor=floor) == "0.0312 (smallest possible)"
    assert p_value(0.5, floor=floor) == "0.5"
    assert p_value(floor, equals=True, floor=floor) == "= 0.0312 (smallest possible)"
    # a floor finer than the printed resolution (or of 1: nothing changed) is not worth a word
    assert p_value(0.0004, floor=0.0004) == "< 0.001" and p_value(1.0, floor=1.0) == "1"
    assert p_value(None, floor=floor) == "–"
    assert floor_note(6, floor) == "6 paired queries: no p below 0.0312 is possible"
    assert floor_note(8, floor, 6) == "8 paired queries (6 changed): no p below 0.0312 is possible"
    assert floor_note(64, 2 / 2**64) == "" and floor_note(None, floor) == ""
    rows = [{"n_paired_queries": 6, "min_p": floor, "n_nonzero": 6}, {"n_paired_queries": 7, "min_p": 1 / 64}]
    assert floor_notes(rows) == (
        "6 paired queries: no p below 0.0312 is possible; 7 paired queries: no p below 0.0156 is possible."
    )


def test_every_page_and_card_formats_p_through_the_one_formatter():
    import pathlib

    import dashboards

    root = pathlib.Path(dashboards.__file__).parent
    sources = {path.relative_to(root).as_posix(): path.read_text(encoding="utf-8") for path in root.rglob("*.py")}
    assert not (root / "common" / "p_values.py").exists()
    # no second p formatter: no module defines one besides dashboards/common/format.py
    defining = sorted(name for name, code in sources.items() if "def p_value(" in code or "def p_text(" in code)
    assert defining == ["common/format.py"]


def test_a_p_column_of_any_table_reads_as_a_p_value():
    html = table(["pair", "p_exact", "p_holm", "p_method"], [[3, 0.0004, 0.031249, "exact"]])
    assert "<td>3</td><td>&lt; 0.001</td><td>0.0312</td><td>exact</td>" in html
