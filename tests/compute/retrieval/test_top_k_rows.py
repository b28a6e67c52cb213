"""Ranking a score matrix row by row equals the plain definition of the tie rule (Hypothesis).

:func:`top_k_rows` keeps only the cells at or above a cheap per-row floor (the depth-th best of
column groups' maxima) and falls back to the exact depth-th best value where that floor is loose
or unsafe; whichever it takes, every row must rank as sorting all of its candidates would. Scores
come from a few values (ties everywhere, ``-inf`` for non-candidates) or from a normal draw.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from biaswh.compute.retrieval.ranking import top_k_rows


def ranked(doc_ids, scores, depth: int, above: float | None) -> list[tuple[int, float]]:
    """The plain definition: candidates sorted by score descending, then doc_id ascending."""
    kept = [(int(i), float(s)) for i, s in zip(doc_ids, scores) if np.isfinite(s) and (above is None or s > above)]
    return sorted(kept, key=lambda pair: (-pair[1], pair[0]))[:depth]


matrices = st.tuples(
    st.integers(0, 4),  # rows
    st.integers(1, 900),  # documents: wide rows take the floor, narrow ones the exact value
    st.integers(1, 60),  # depth
    st.integers(0, 2**32 - 1),  # seed of the scores
    st.sampled_from(["ties", "normal", "float32"]),
    st.sampled_from([None, 0.0]),  # above
)


@settings(max_examples=150, deadline=None)
@given(matrix=matrices)
def test_each_row_ranks_its_candidates_by_the_tie_rule(matrix):
    n_rows, n_docs, depth, seed, kind, above = matrix
    rng = np.random.default_rng(seed)
    if kind == "ties":
        scores = rng.choice([-np.inf, 0.0, 1.0, 2.5], size=(n_rows, n_docs), p=[0.2, 0.4, 0.3, 0.1])
    else:
        scores = rng.standard_normal((n_rows, n_docs)).astype(np.float32 if kind == "float32" else np.float64)
    doc_ids = rng.permutation(3 * n_docs)[:n_docs].astype(np.int64)
    rows = top_k_rows(scores, None, doc_ids, depth, above=above)
    assert len(rows) == n_rows
    for row, (found_ids, found_scores) in zip(scores, rows):
        assert found_ids.dtype == np.int64 and found_scores.dtype == np.float64
        assert list(zip(found_ids.tolist(), found_scores.tolist())) == ranked(doc_ids, row, depth, above)
