"""Tokenizers for BM25, named and recorded with every run.

The default is the original dialect study's: lowercase the text, then keep every run of
``[a-z0-9]+``. Any other regular expression (with or without lowercasing) can be named in
a study config; its description is stored in the run's configuration.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

DEFAULT_PATTERN = r"[a-z0-9]+"


@dataclass(frozen=True)
class RegexTokenizer:
    """Split text into the matches of ``pattern`` (after lowercasing when ``lowercase``).

    Parameters
    ----------
    pattern
        A Python regular expression; every non-overlapping match is one token.
    lowercase
        Lowercase the text before matching (the original study did).
    """

    pattern: str = DEFAULT_PATTERN
    lowercase: bool = True
    _compiled: re.Pattern = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        try:
            compiled = re.compile(self.pattern)
        except re.error as exc:
            from biaswh.warehouse.errors import UserError

            raise UserError(f"tokenizer pattern {self.pattern!r} is not a valid regular expression: {exc}") from None
        object.__setattr__(self, "_compiled", compiled)

    def __call__(self, text: str) -> list[str]:
        return self._compiled.findall(text.lower() if self.lowercase else text)

    def describe(self) -> dict:
        """What a run records about its tokenizer."""
        return {"kind": "regex", "pattern": self.pattern, "lowercase": self.lowercase}


def tokenizer_from_settings(settings: dict | None) -> RegexTokenizer:
    """Build the tokenizer a study config names (``{pattern = ..., lowercase = ...}``)."""
    settings = dict(settings or {})
    unknown = set(settings) - {"pattern", "lowercase"}
    if unknown:
        from biaswh.warehouse.errors import UserError

        raise UserError(f"[retrieval.tokenizer] has unknown key(s): {', '.join(sorted(unknown))}")
    return RegexTokenizer(
        pattern=settings.get("pattern", DEFAULT_PATTERN), lowercase=bool(settings.get("lowercase", True))
    )
