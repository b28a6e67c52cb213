"""Merging per-shard (or per-tile) top lists equals ranking every document at once (Hypothesis).

The tie rule is a total order, score descending then doc_id ascending, so the best ``depth`` of
the union lie among each part's best ``depth``: the property :func:`merge_top_k` rests on, for
the dense search's tiles and the Ray engine's corpus shards alike. Scores come from a few values,
so ties across parts are common.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from biaswh.compute.retrieval.ranking import merge_top_k


def ranked(doc_ids: list[int], scores: list[float], depth: int) -> list[tuple[int, float]]:
    """The plain definition: sort every (doc_id, score) by the tie rule, keep ``depth``."""
    return sorted(zip(doc_ids, scores), key=lambda pair: (-pair[1], pair[0]))[:depth]


corpora = st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.5]), min_size=1, max_size=40).flatmap(
    lambda scores: st.tuples(
        st.just(scores),
        st.permutations(range(len(scores))),  # doc ids in any order, so each part holds scattered ids
        st.lists(st.integers(0, len(scores)), min_size=1, max_size=4),  # where the parts are cut
        st.integers(1, 12),
    )
)


@settings(max_examples=200, deadline=None)
@given(corpus=corpora)
def test_merging_each_parts_top_list_ranks_like_the_whole_corpus(corpus):
    scores, doc_ids, cuts, depth = corpus
    bounds = sorted({0, len(scores), *cuts})
    parts = []
    for start, end in zip(bounds, bounds[1:]):
        best = ranked(doc_ids[start:end], scores[start:end], depth)
        parts.append((np.array([d for d, _ in best]), np.array([s for _, s in best])))
    merged_ids, merged_scores = merge_top_k(parts, depth)
    assert list(zip(merged_ids.tolist(), merged_scores.tolist())) == ranked(doc_ids, scores, depth)
