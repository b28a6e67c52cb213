"""Find a test's listed words in an embedding's vocabulary under a declared match policy.

Policies (each tries the earlier ways first and records which one matched):

- ``exact``: only the word as listed ("John" finds "John", never "john").
- ``lower``: else its lower-cased form ("Einstein" finds "einstein").
- ``casefold``: else any vocabulary entry with the same case-folded form ("nasa" finds "NASA");
  when several share it, the first in the embedding's file order (the most frequent in word2vec).

A found word is not used (``drop_reason`` says why) when it repeats a vocabulary entry already
used in the same test, or is dropped to balance unequal target sets (``balanced out``). Words a
definition excludes are recorded as ``excluded_by_definition`` and count nowhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

MatchPolicy = Literal["exact", "lower", "casefold"]
MATCH_POLICIES: tuple[str, ...] = ("exact", "lower", "casefold")


@dataclass(frozen=True)
class WordMatch:
    """One listed word: how (and whether) it was found, and whether the statistics use it."""

    set_role: str
    position: int
    word: str
    match_kind: str  # exact, lower, casefold, missing, excluded_by_definition
    matched_word: str | None
    used: bool
    drop_reason: str | None = None


class Vocabulary:
    """An embedding's words with the look-ups each policy needs."""

    def __init__(self, words: list[str]):
        self.index = {word: row for row, word in enumerate(words)}
        self._casefolded: dict[str, str] = {}
        for word in words:  # file order: the first (most frequent) spelling wins
            self._casefolded.setdefault(word.casefold(), word)

    def find(self, word: str, policy: MatchPolicy) -> tuple[str, str | None]:
        """Return (match kind, vocabulary entry) or ("missing", None)."""
        if word in self.index:
            return "exact", word
        if policy in ("lower", "casefold") and word.lower() in self.index:
            return "lower", word.lower()
        if policy == "casefold" and word.casefold() in self._casefolded:
            return "casefold", self._casefolded[word.casefold()]
        return "missing", None


def match_words(words: list[dict], vocabulary: Vocabulary, policy: MatchPolicy) -> list[WordMatch]:
    """Match a test's listed words (dicts with set_role, position, word, excluded_by_definition), in order."""
    if policy not in MATCH_POLICIES:
        raise ValueError(f"unknown match policy {policy!r}; expected one of {MATCH_POLICIES}")
    used_entries: dict[str, tuple[str, str]] = {}
    matches = []
    for item in words:
        role, word = item["set_role"], item["word"]
        if item["excluded_by_definition"]:
            matches.append(
                WordMatch(
                    role,
                    item["position"],
                    word,
                    "excluded_by_definition",
                    None,
                    False,
                    "excluded by the test definition",
                )
            )
            continue
        kind, entry = vocabulary.find(word, policy)
        if entry is not None and entry in used_entries:
            other_role, other_word = used_entries[entry]
            matches.append(
                WordMatch(
                    role, item["position"], word, kind, entry, False, f"same vector as {other_word!r} in {other_role}"
                )
            )
            continue
        if entry is not None:
            used_entries[entry] = (role, word)
        matches.append(WordMatch(role, item["position"], word, kind, entry, entry is not None))
    return matches


def set_coverage(matches: list[WordMatch]) -> dict[str, tuple[int, int, float]]:
    """Per role: (found, listed, found / listed), over the words the definition does not exclude."""
    coverage = {}
    for role in dict.fromkeys(m.set_role for m in matches):
        listed = [m for m in matches if m.set_role == role and m.match_kind != "excluded_by_definition"]
        found = sum(m.matched_word is not None for m in listed)
        coverage[role] = (found, len(listed), found / len(listed) if listed else 0.0)
    return coverage


def balance_targets(matches: list[WordMatch], rng: np.random.Generator) -> list[WordMatch]:
    """Drop random used words from the larger target set until both have the same size."""
    used = {
        role: [i for i, m in enumerate(matches) if m.set_role == role and m.used] for role in ("target_x", "target_y")
    }
    larger, smaller = sorted(used, key=lambda r: len(used[r]), reverse=True)
    excess = len(used[larger]) - len(used[smaller])
    if excess == 0:
        return matches
    dropped = set(rng.choice(used[larger], size=excess, replace=False).tolist())
    return [
        WordMatch(
            m.set_role,
            m.position,
            m.word,
            m.match_kind,
            m.matched_word,
            False,
            f"balanced out (seeded) to match the {len(used[smaller])} words of {smaller}",
        )
        if i in dropped
        else m
        for i, m in enumerate(matches)
    ]
