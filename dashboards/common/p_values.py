"""How a paired test's p-value is printed, with what its n allows (stats/paired/mean_difference.py).

A stored p is never 0: an exact test's smallest p is 2 / 2^n_nonzero, a Monte Carlo one's
1 / (B + 1). Where that floor is coarse enough to matter (6 paired queries cannot give less
than 0.031), the page says so instead of letting a reader take 0.031 for a weak result.
"""

from __future__ import annotations

# A floor below this cannot be seen at the printed resolution, so it is not worth a sentence.
FLOOR_WORTH_NOTING = 0.001


def p_text(value, *, equals: bool = False) -> str:
    """Two significant digits ("0.031"), "< 0.001" below a thousandth, "–" where nothing was tested."""
    if value is None:
        return "–"
    if value < 0.001:
        return "< 0.001"
    return ("= " if equals else "") + f"{float(value):.2g}"


def floor_note(n_paired, min_p, n_nonzero=None) -> str:
    """E.g. "6 paired queries: no p below 0.031 is possible" ('' when the floor is too small to matter).

    Unchanged queries flip to themselves, so the floor follows the changed ones, named when fewer.
    """
    if n_paired is None or min_p is None or not FLOOR_WORTH_NOTING <= min_p < 1:
        return ""  # a floor of 1 means nothing changed: there is no p to read against it
    changed = f" ({n_nonzero} changed)" if n_nonzero is not None and n_nonzero < n_paired else ""
    return f"{n_paired} paired quer{'y' if n_paired == 1 else 'ies'}{changed}: no p below {min_p:.2g} is possible"


def floor_notes(rows) -> str:
    """One clause per distinct floor that matters among ``rows`` (dicts with ``n_paired_queries``,
    ``n_nonzero``, ``min_p``), smallest n first, ending in a full stop ('' when none matters)."""
    keys = {(r["n_paired_queries"], r.get("min_p"), r.get("n_nonzero")) for r in rows}
    notes = [floor_note(*key) for key in sorted(keys, key=lambda k: (k[0] or 0, k[2] or 0)) if floor_note(*key)]
    return "; ".join(notes) + ("." if notes else "")
