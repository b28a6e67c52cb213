"""Study results the docs state in prose, read from their text, for tests against real runs.

A number the docs state about a study is either generated from the warehouse (the README's table,
``python -m docs.generate``) or checked by a test against a run: each function here finds one
claim's sentence and returns its numbers, so a test compares them with the run at the precision
the text gives. A sentence that is
rewritten without its numbers fails the test that reads it, which then says where to look.
"""

from __future__ import annotations

import re

from tests.conftest import REPOSITORY_ROOT

FORMATS_DOC = REPOSITORY_ROOT / "docs" / "formats-and-exports.md"
NUMBER = r"(-?\d+(?:\.\d+)?)"


def _sentence(text: str, start: str, where) -> str:
    position = text.find(start)
    if position < 0:
        raise AssertionError(f"{where} no longer says {start!r}: update tests/readme_claims.py with the new text")
    return " ".join(text[position : position + 900].split())


def decimals_of(claim: float, text_value: str | None = None) -> int:
    """How many decimals a claim was written with (from its text when given)."""
    written = text_value if text_value is not None else repr(claim)
    return len(written.split(".")[1]) if "." in written else 0


def power_explanation() -> dict[str, float]:
    """docs/formats-and-exports.md: planning power of 200 pairs and the real run's discordant pairs."""
    text = _sentence(FORMATS_DOC.read_text(encoding="utf-8"), "**Planning power** (before the data)", FORMATS_DOC.name)
    planning = re.search(rf"200 pairs at {NUMBER}% discordance: {NUMBER} points", text)
    observed = re.search(rf"has {NUMBER} to {NUMBER} discordant pairs of 200", text)
    formula = re.search(rf"the formula gives {NUMBER} to {NUMBER} points", text)
    assert planning and observed and formula, f"the power explanation lost its numbers: {text[:300]}"
    return {
        "planning_rate": float(planning.group(1)) / 100,
        "planning_gap": float(planning.group(2)),
        "fewest_discordant": float(observed.group(1)),
        "most_discordant": float(observed.group(2)),
        "smallest_formula_gap": float(formula.group(1)),
        "largest_formula_gap": float(formula.group(2)),
    }
