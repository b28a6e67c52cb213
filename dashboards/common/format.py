"""The site's one number and value format: every table cell and every chart label goes through here.

- proportions a page calls recall or a rate: percentages, one decimal (:func:`percent`);
- counts: integers (:func:`count`);
- p-values: 3 significant digits, below 0.001 "< 0.001", "(smallest possible)" at the floor of a
  test whose n allows no smaller p (:func:`p_value`, :func:`floor_note`);
- other numbers: 3 significant digits, never scientific notation (:func:`number`);
- booleans: "yes" / "no"; timestamps: to the second, UTC; missing values: "–".

Charts use the matching d3 formats (:data:`PERCENT_AXIS`, :data:`NUMBER_TOOLTIP`, ...), so a
value reads the same in a table cell and on a chart.
"""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import pandas as pd

MISSING = "–"
# d3-format strings of the same rules, for Altair axes and tooltips
PERCENT_AXIS = ".0%"
PERCENT_TOOLTIP = ".1%"
NUMBER_TOOLTIP = ".3~g"
POINTS_TOOLTIP = ".1f"
COUNT_TOOLTIP = ",d"
# A p floor below this cannot be seen at the printed resolution, so it is not worth a word.
FLOOR_WORTH_NOTING = 0.001


def is_missing(value) -> bool:
    """None, NaN, pandas NA / NaT: a value the page shows as "–"."""
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    if isinstance(value, (float, np.floating)):
        return math.isnan(value)
    return False


def number(value, digits: int = 3, *, missing: str = MISSING) -> str:
    """``digits`` significant digits; ``missing`` for None and NaN; counts of 1,000 or more with separators."""
    if is_missing(value):
        return missing
    if isinstance(value, (bool, np.bool_)):
        return boolean(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isinf(value):
            return "∞" if value > 0 else "-∞"
        if abs(value) >= 10**digits:  # no scientific notation for counts such as 1,400 pairs
            return f"{value:,.0f}"
        return f"{value:.{digits}g}"
    return str(value)


def percent(value, digits: int = 1) -> str:
    """A proportion (0..1) as a percentage with ``digits`` decimals: 0.9286 -> "92.9%"."""
    return MISSING if is_missing(value) else f"{100 * float(value):.{digits}f}%"


def points(value, digits: int = 1) -> str:
    """A difference of percentages in points, signed: 12.5 -> "+12.5"."""
    return MISSING if is_missing(value) else f"{float(value):+.{digits}f}"


def count(value) -> str:
    """A count as an integer with thousands separators."""
    return MISSING if is_missing(value) else f"{int(value):,}"


def p_value(value, *, equals: bool = False, floor=None) -> str:
    """A p-value: 3 significant digits, below 0.001 as "< 0.001" (a resampling p of 0 is not 0).

    ``floor``: the smallest p the test could give with its n (an exact test's 2 / 2^n_nonzero,
    a Monte Carlo one's 1 / (B + 1)); a p at that floor says so, so that a reader does not take
    0.0312 from 6 paired queries for a weak result.
    """
    if is_missing(value):
        return MISSING
    if float(value) < 0.001:
        return "< 0.001"
    shown = ("= " if equals else "") + number(float(value))
    at_floor = not is_missing(floor) and FLOOR_WORTH_NOTING <= float(floor) < 1 and float(value) <= float(floor)
    return f"{shown} (smallest possible)" if at_floor else shown


def floor_note(n_paired, min_p, n_nonzero=None) -> str:
    """E.g. "6 paired queries: no p below 0.0312 is possible" ('' when the floor is too small to matter).

    Unchanged queries flip to themselves, so the floor follows the changed ones, named when fewer.
    """
    if is_missing(n_paired) or is_missing(min_p) or not FLOOR_WORTH_NOTING <= min_p < 1:
        return ""  # a floor of 1 means nothing changed: there is no p to read against it
    changed = f" ({n_nonzero} changed)" if not is_missing(n_nonzero) and n_nonzero < n_paired else ""
    noun = "query" if n_paired == 1 else "queries"
    return f"{n_paired} paired {noun}{changed}: no p below {number(float(min_p))} is possible"


def floor_notes(rows) -> str:
    """One clause per distinct floor that matters among ``rows`` (dicts with ``n_paired_queries``,
    ``n_nonzero``, ``min_p``), smallest n first, ending in a full stop ('' when none matters)."""
    keys = {(r["n_paired_queries"], r.get("min_p"), r.get("n_nonzero")) for r in rows}
    notes = [floor_note(*key) for key in sorted(keys, key=lambda k: (k[0] or 0, k[2] or 0)) if floor_note(*key)]
    return "; ".join(notes) + ("." if notes else "")


def boolean(value) -> str:
    """A boolean as a word."""
    return MISSING if is_missing(value) else ("yes" if value else "no")


def timestamp(value) -> str:
    """A timestamp to the second (UTC as stored)."""
    if is_missing(value):
        return MISSING
    if isinstance(value, (dt.datetime, pd.Timestamp)):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    return str(value)[:19]


def cell(value) -> str:
    """Any table value in the house format (numbers 3 significant digits unless formatted before)."""
    if is_missing(value):
        return MISSING
    if isinstance(value, (bool, np.bool_)):
        return boolean(value)
    if isinstance(value, (dt.datetime, pd.Timestamp)):
        return timestamp(value)
    if isinstance(value, (float, np.floating)):
        return number(value)
    if isinstance(value, np.integer):
        return str(int(value))
    return str(value)


def cell_text_colour(field: str, threshold: float, *, absolute: bool = False):
    """An Altair text colour readable on a heatmap cell: white where the cell is dark (the value,
    or with ``absolute`` its magnitude, above ``threshold``), black elsewhere."""
    import altair as alt  # charts only: the table formatters need no Altair

    value = f"abs(datum[{field!r}])" if absolute else f"datum[{field!r}]"
    return alt.condition(f"{value} > {threshold!r}", alt.value("white"), alt.value("black"))


def dark_threshold(values, share: float = 0.7) -> float:
    """The value above which a cell of a sequential or diverging scale spanning ``values`` is dark."""
    finite = [abs(float(v)) for v in values if not is_missing(v)]
    return share * max(finite) if finite else float("inf")
