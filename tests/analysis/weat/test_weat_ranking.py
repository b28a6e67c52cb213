"""Ranking embeddings per metric with intervals: places the intervals allow, and distinguishable neighbours."""

from __future__ import annotations

import pytest

from biaswh.analysis.weat.ranking import magnitude_interval, rank_embeddings


def _row(embedding, value, low, high, metric="rnd", attribute_set="attribute_a"):
    return {
        "test_set": "s",
        "test": "t",
        "metric": metric,
        "attribute_set": attribute_set,
        "embedding": embedding,
        "value": value,
        "ci_low": low,
        "ci_high": high,
    }


def test_magnitudes_turn_each_metric_into_larger_is_more_biased():
    assert magnitude_interval("rnd", -0.3, -0.4, -0.2) == (0.3, 0.2, 0.4)
    assert magnitude_interval("ripa", 0.1, -0.05, 0.2) == (0.1, 0.0, 0.2)  # spans 0: could be unbiased
    assert magnitude_interval("ect", 0.9, 0.8, 0.95) == pytest.approx((0.1, 0.05, 0.2))
    assert magnitude_interval("rnsb", 0.02, 0.01, 0.03) == (0.02, 0.01, 0.03)


def test_overlapping_intervals_share_places_and_separated_ones_are_distinguishable():
    ranked = rank_embeddings(
        [
            _row("small", -0.05, -0.1, 0.0),
            _row("large", -0.6, -0.7, -0.5),
            _row("medium", -0.45, -0.55, -0.35),
            _row("pooled", 0.9, 0.8, 1.0, metric="mac", attribute_set="both"),  # not a bias score: left out
        ]
    )
    places = {r.embedding: (r.rank, r.rank_best, r.rank_worst, r.distinguishable_from_next) for r in ranked}
    assert places == {
        "large": (1, 1, 2, False),  # its interval overlaps medium's
        "medium": (2, 1, 2, True),  # above small's whole interval
        "small": (3, 3, 3, None),
    }
    assert {r.n_embeddings for r in ranked} == {3}
