"""The light query clean-up of the original dialect study, as named, recorded rule sets.

``light`` (the default, corrected): ``in'`` or ``in’`` closing a word becomes ``ing``
("runnin'" → "running"); curly quotes become straight; runs of whitespace become one space;
ends are stripped.

``seed_compatible``: the original notebook's ``light_cleanup_query`` as it ran: quotes and
whitespace first, then ``\\b([A-Za-z]+)in['’]\\b`` → ``\\1ing``. Its closing ``\\b`` needs a
word character after the apostrophe, so it rewrites "ain't" to "aingt" and leaves a final
"runnin'" alone. Only for reproducing the published numbers.

The rule set's label is stored with every cleaned row so a study can say what it used.
"""

from __future__ import annotations

import re
from typing import Callable, Literal

CLEANUP_RULES = "light-v1: in'/in’ at word end -> ing; curly quotes -> straight; collapse whitespace; strip"
SEED_COMPATIBLE_RULES = (
    "seed_compatible: curly quotes -> straight; collapse whitespace; strip; "
    r"re.sub(r'\b([A-Za-z]+)in[’']\b', r'\1ing') as the original notebook (ain't -> aingt)"
)
CleanupName = Literal["light", "seed_compatible", "none"]

_G_DROPPING = re.compile(r"(?<=[A-Za-z])in['\u2019](?![A-Za-z0-9])")
_ORIGINAL_G_DROPPING = re.compile(r"\b([A-Za-z]+)in[\u2019']\b")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})
_WHITESPACE = re.compile(r"\s+")


def light_cleanup(text: str) -> str:
    """Apply the original study's light clean-up to one query text (word-final ``in'`` only)."""
    text = _G_DROPPING.sub("ing", text)
    text = text.translate(_QUOTES)
    return _WHITESPACE.sub(" ", text).strip()


def seed_compatible_cleanup(text: str) -> str:
    """The original notebook's clean-up, byte for byte (turns "ain't" into "aingt")."""
    text = _WHITESPACE.sub(" ", text.translate(_QUOTES)).strip()
    return _ORIGINAL_G_DROPPING.sub(r"\1ing", text)


# name -> (label stored with each row, function); "none" keeps the text as is.
CLEANUPS: dict[str, tuple[str, Callable[[str], str]]] = {
    "light": (CLEANUP_RULES, light_cleanup),
    "seed_compatible": (SEED_COMPATIBLE_RULES, seed_compatible_cleanup),
    "none": ("none", lambda text: text),
}


def cleanup_named(cleanup: bool | str) -> tuple[str, Callable[[str], str]]:
    """The (label, function) of a clean-up option: ``True``/``"light"``, ``"seed_compatible"``, ``False``/``"none"``."""
    name = ("light" if cleanup else "none") if isinstance(cleanup, bool) else cleanup
    if name not in CLEANUPS:
        from biaswh.warehouse.errors import UserError

        raise UserError(f"cleanup must be true, false or one of {', '.join(CLEANUPS)}; got {cleanup!r}")
    return CLEANUPS[name]
