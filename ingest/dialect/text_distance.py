"""Edit distances between a source question and its dialect variant."""

from __future__ import annotations


def token_edit_distance(a: str, b: str) -> int:
    """Levenshtein distance between the whitespace tokens of ``a`` and ``b`` (case-sensitive)."""
    return levenshtein(a.split(), b.split())


def levenshtein(a, b) -> int:
    """Insertions, deletions and substitutions turning sequence ``a`` into ``b`` (unit costs)."""
    previous = list(range(len(b) + 1))
    for i, item in enumerate(a, start=1):
        current = [i]
        for j, other in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (item != other)))
        previous = current
    return previous[-1]
