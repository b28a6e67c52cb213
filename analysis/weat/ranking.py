"""Rank embeddings by how biased each metric finds them, with intervals, and say which ranks are distinguishable.

WEFE ranks embeddings by their bare scores. Here each (test, metric, attribute set) ranks the
embeddings by bias *magnitude* with the magnitude's interval (from the metric's bootstrap
interval), and a rank is given as the range of places the intervals allow: an embedding is
surely above another only when its whole interval is above the other's. Non-overlap of two 95%
intervals is a conservative test of a difference, so "distinguishable" errs towards "not".
"""

from __future__ import annotations

from dataclasses import dataclass

# How each metric's value becomes a bias magnitude (larger: more biased). Pooled MAC is left
# out: without a group comparison it is not a bias score.
MAGNITUDE = {
    "rnd": "absolute",
    "mac": "absolute",
    "ripa": "absolute",
    "ripa_pairwise": "absolute",
    "d_word_sets": "absolute",
    "ect": "one_minus",
    "rnsb": "as_is",
}


@dataclass(frozen=True)
class Ranked:
    """One embedding's place for one (test, metric, attribute set)."""

    test_set: str
    test: str
    metric: str
    attribute_set: str
    embedding: str
    rank: int  # by the point estimate, 1 = most biased
    rank_best: int  # the best place the intervals allow
    rank_worst: int
    magnitude: float
    magnitude_low: float
    magnitude_high: float
    distinguishable_from_next: bool | None  # None for the last place
    n_embeddings: int


def magnitude_interval(metric: str, value: float, low: float, high: float) -> tuple[float, float, float]:
    """(magnitude, low, high) of the bias for a metric's value and interval."""
    kind = MAGNITUDE[metric]
    if kind == "as_is":
        return value, low, high
    if kind == "one_minus":
        return 1 - value, 1 - high, 1 - low
    if low <= 0 <= high:
        return abs(value), 0.0, max(abs(low), abs(high))
    return abs(value), min(abs(low), abs(high)), max(abs(low), abs(high))


def rank_embeddings(rows: list[dict]) -> list[Ranked]:
    """Rows with test_set, test, metric, attribute_set, embedding, value, ci_low, ci_high (computed only)."""
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        if row["metric"] in MAGNITUDE and not (row["metric"] == "mac" and row["attribute_set"] == "both"):
            groups.setdefault((row["test_set"], row["test"], row["metric"], row["attribute_set"]), []).append(row)
    ranked = []
    for key, members in sorted(groups.items()):
        scored = sorted(
            (
                (r["embedding"], *magnitude_interval(r["metric"], r["value"], r["ci_low"], r["ci_high"]))
                for r in members
            ),
            key=lambda item: (-item[1], item[0]),
        )
        for place, (embedding, magnitude, low, high) in enumerate(scored, start=1):
            surely_above = sum(other[2] > high for other in scored)
            surely_below = sum(other[3] < low for other in scored)
            following = scored[place] if place < len(scored) else None
            ranked.append(
                Ranked(
                    *key,
                    embedding=embedding,
                    rank=place,
                    rank_best=1 + surely_above,
                    rank_worst=len(scored) - surely_below,
                    magnitude=magnitude,
                    magnitude_low=low,
                    magnitude_high=high,
                    distinguishable_from_next=None if following is None else following[3] < low,
                    n_embeddings=len(scored),
                )
            )
    return ranked
