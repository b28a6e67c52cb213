"""A document's text shortened to one line of a command's output (``biaswh peek``, ``biaswh search``)."""

from __future__ import annotations

import textwrap

SNIPPET = 110  # characters of a document shown


def snippet(text: str | None) -> str:
    """``text`` shortened at a word to :data:`SNIPPET` characters, `` …`` marking a cut."""
    return textwrap.shorten(text or "", SNIPPET, placeholder=" …")
