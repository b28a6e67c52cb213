"""The site's one number and value format: every table cell and every chart label goes through here.

The policy (docs/formats-and-exports.md; tests/dashboards/test_site_formats.py reads every page for it):

- proportions a page calls recall or a rate: percentages, one decimal (:func:`percent`);
- differences of percentages: points, signed, one decimal (:func:`points`);
- counts: integers with thousands separators (:func:`count`); sample sizes a computation gives as a
  fraction ("pairs needed"): rounded up (:func:`sample_size`); a count with its noun: :func:`plural`;
- p-values: 2 significant digits, below 0.001 "< 0.001", "(smallest possible)" at the floor of a
  test whose n allows no smaller p (:func:`p_value`, :func:`floor_note`);
- other numbers: 3 significant digits, never scientific notation (:func:`number`);
- an interval: its bounds in the unit and with the decimals of its estimate (:func:`interval`,
  :func:`estimate`);
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


def decimals(value, digits: int = 3) -> int:
    """The decimals that show ``value`` to ``digits`` significant digits (0 for 100 and up): the
    decimals an interval's bounds share with their estimate."""
    if is_missing(value) or float(value) == 0 or math.isinf(float(value)):
        return digits - 1
    return max(0, digits - 1 - math.floor(math.log10(abs(float(value)))))


def fixed(value, places: int) -> str:
    """``value`` with exactly ``places`` decimals ("–" when missing); thousands separators."""
    if is_missing(value):
        return MISSING
    if math.isinf(float(value)):
        return "∞" if value > 0 else "-∞"
    shown = f"{float(value):,.{places}f}"
    return "0" + shown[2:] if shown.startswith("-0") and float(shown.replace(",", "")) == 0 else shown


def shared_decimals(value, low, high) -> int:
    """The decimals an estimate and its bounds share: the estimate's at 3 significant digits, but no
    more than the larger bound's (-0.0123 [-0.154, 0.133] reads -0.012 [-0.154, 0.133])."""
    bounds = [abs(float(b)) for b in (low, high) if not is_missing(b) and not math.isinf(float(b))]
    places = decimals(value) if not is_missing(value) else decimals(max(bounds, default=0))
    return min(places, decimals(max(bounds))) if bounds else places


UNITS = {
    "percent": lambda v, places: MISSING if is_missing(v) else f"{100 * float(v):.{places}f}%",
    "points": lambda v, places: MISSING if is_missing(v) else f"{float(v):+.{places}f}",
    "number": fixed,
}


def interval(low, high, *, unit: str = "number", places: int | None = None, like=None) -> str:
    """``[low, high]`` in one unit and one number of decimals: "[30.0%, 90.3%]", never "[30%, 90.3%]".

    Parameters
    ----------
    unit : "percent" (a proportion shown as a percentage, 1 decimal), "points" (signed, 1 decimal)
        or "number" (the decimals of ``like``, the estimate, at 3 significant digits; else ``places``).
    places : the decimals, when no estimate sets them.
    like : the estimate the interval belongs to: the bounds get its decimals.
    """
    if is_missing(low) or is_missing(high):
        return f"[{MISSING}]"
    if places is None:
        places = 1 if unit != "number" else shared_decimals(like, low, high)
    show = UNITS[unit]
    return f"[{show(low, places)}, {show(high, places)}]"


def estimate(value, low, high, *, unit: str = "number") -> str:
    """An estimate with its interval in the same unit and decimals: "0.903 [0.300, 0.950]"."""
    if is_missing(value):
        return MISSING
    places = 1 if unit != "number" else shared_decimals(value, low, high)
    return f"{UNITS[unit](value, places)} {interval(low, high, unit=unit, places=places)}"


def sample_size(value) -> str:
    """A number of units a computation gives as a fraction, rounded up: 95.7 pairs needed -> "96"."""
    if is_missing(value):
        return MISSING
    if math.isinf(float(value)):
        return "∞"
    return count(math.ceil(float(value) - 1e-9))  # 96.0000000001 from floating error is still 96


def plural(n, singular: str, plural_form: str | None = None) -> str:
    """``n`` with its noun: "1 run", "4 runs", "1,400 pairs", "2 breaches" (``plural_form`` when not +s)."""
    noun = singular if n == 1 else (plural_form or singular + "s")
    return f"{count(n)} {noun}"


def percent(value, digits: int = 1) -> str:
    """A proportion (0..1) as a percentage with ``digits`` decimals: 0.9286 -> "92.9%"."""
    return MISSING if is_missing(value) else f"{100 * float(value):.{digits}f}%"


def points(value, digits: int = 1) -> str:
    """A difference of percentages in points, signed: 12.5 -> "+12.5"."""
    return MISSING if is_missing(value) else f"{float(value):+.{digits}f}"


def count(value) -> str:
    """A count as an integer with thousands separators."""
    return MISSING if is_missing(value) else f"{int(value):,}"


def significant(value, digits: int = 2) -> str:
    """``value`` to ``digits`` significant digits, trailing zeros kept: 0.0195 -> "0.020", 1 -> "1.0"."""
    shown = f"{float(value):#.{digits}g}"
    return shown.rstrip(".") if "e" not in shown else f"{float(value):.{digits + 3}f}"


def p_value(value, *, equals: bool = False, floor=None) -> str:
    """A p-value: 2 significant digits, below 0.001 as "< 0.001" (a resampling p of 0 is not 0).

    ``floor``: the smallest p the test could give with its n (an exact test's 2 / 2^n_nonzero,
    a Monte Carlo one's 1 / (B + 1)); a p at that floor says so, so that a reader does not take
    0.0312 from 6 paired queries for a weak result.
    """
    if is_missing(value):
        return MISSING
    if float(value) < 0.001:
        return "< 0.001"
    shown = ("= " if equals else "") + significant(value)
    at_floor = not is_missing(floor) and FLOOR_WORTH_NOTING <= float(floor) < 1 and float(value) <= float(floor)
    return f"{shown} (smallest possible)" if at_floor else shown


def floor_note(n_paired, min_p, n_nonzero=None) -> str:
    """E.g. "6 paired queries: no p below 0.031 is possible" ('' when the floor is too small to matter).

    Unchanged queries flip to themselves, so the floor follows the changed ones, named when fewer.
    """
    if is_missing(n_paired) or is_missing(min_p) or not FLOOR_WORTH_NOTING <= min_p < 1:
        return ""  # a floor of 1 means nothing changed: there is no p to read against it
    changed = f" ({n_nonzero} changed)" if not is_missing(n_nonzero) and n_nonzero < n_paired else ""
    noun = "query" if n_paired == 1 else "queries"
    return f"{count(n_paired)} paired {noun}{changed}: no p below {significant(min_p)} is possible"


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
        return count(value)
    if isinstance(value, int):
        return count(value)
    return str(value)


def natural_order(values) -> list[str]:
    """Distinct ``values`` in natural order, numbers inside compared as numbers: weat1, weat2, weat10."""
    import re

    def key(value) -> list:
        return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", str(value))]

    return sorted(dict.fromkeys(str(v) for v in values), key=key)


def cell_text_colour(field: str, threshold: float, *, absolute: bool = False):
    """An Altair text colour readable on a heatmap cell: white where the cell is dark (the value,
    or with ``absolute`` its magnitude, above ``threshold``), black elsewhere."""
    import altair as alt  # charts only: the table formatters need no Altair

    value = f"abs(datum[{field!r}])" if absolute else f"datum[{field!r}]"
    return alt.condition(f"{value} > {threshold!r}", alt.value("white"), alt.value("black"))


def tooltips(*fields) -> list:
    """An Altair tooltip list: each shorthand string (``"k:Q"``) as ``alt.Tooltip``, other entries as
    given. The same spec as the strings, without Altair resolving each string against its whole
    schema (2 ms a string, most of drawing a chart)."""
    import altair as alt  # charts only: the table formatters need no Altair

    return [alt.Tooltip(field) if isinstance(field, str) else field for field in fields]


def dark_threshold(values, share: float = 0.7) -> float:
    """The value above which a cell of a sequential or diverging scale spanning ``values`` is dark."""
    finite = [abs(float(v)) for v in values if not is_missing(v)]
    return share * max(finite) if finite else float("inf")
