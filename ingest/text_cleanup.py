"""The light query clean-up of the original dialect study, as named, recorded rules.

Rules, in order: ``in'`` or ``in’`` closing a word becomes ``ing`` ("runnin'" → "running");
curly quotes become straight; runs of whitespace become one space; ends are stripped.
The rule set's name is stored with every cleaned row so a study can say what it used.
"""

from __future__ import annotations

import re

CLEANUP_RULES = "light-v1: in'/in’ at word end -> ing; curly quotes -> straight; collapse whitespace; strip"

_G_DROPPING = re.compile(r"(?<=[A-Za-z])in['\u2019](?![A-Za-z0-9])")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})
_WHITESPACE = re.compile(r"\s+")


def light_cleanup(text: str) -> str:
    """Apply the original study's light clean-up to one query text."""
    text = _G_DROPPING.sub("ing", text)
    text = text.translate(_QUOTES)
    return _WHITESPACE.sub(" ", text).strip()
