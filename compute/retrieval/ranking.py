"""Ranked hits per query and the one tie rule every retriever uses.

Tie rule (documented, deterministic): documents are ordered by score, highest first;
documents with equal scores are ordered by ``doc_id``, lowest first. Only candidates a
retriever marks as valid (finite scores) can be returned.

``seed_compatible`` ranking (:func:`argsort_reversed_top_k`) is the original dialect
notebook's ``numpy.argsort(scores)[::-1][:k]`` over every document, zero scores included:
only for reproducing its published numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

EMPTY_QUERY = "empty query"


@dataclass(frozen=True)
class QueryHits:
    """One query's ranked hits, best first; ``reason`` says why there are none (else ``None``)."""

    doc_ids: np.ndarray
    scores: np.ndarray
    reason: str | None = None

    def __len__(self) -> int:
        return len(self.doc_ids)


def no_hits(reason: str) -> QueryHits:
    """An empty result that records why it is empty."""
    return QueryHits(np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float64), reason)


def top_k(scores: np.ndarray, doc_ids: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``depth`` best finite entries of one score row under the tie rule.

    Parameters
    ----------
    scores
        One score per document; ``-inf`` (or NaN) marks a document that is not a candidate.
    doc_ids
        The documents' ids, aligned with ``scores``.
    depth
        How many hits to return at most.

    Returns
    -------
    (doc_ids, scores) of the hits, best first.
    """
    valid = np.flatnonzero(np.isfinite(scores))
    if len(valid) > depth:
        values = scores[valid]
        # The depth-th best value; everything tied with it stays a candidate so the
        # doc_id tie rule, not the partition algorithm, decides who is cut.
        threshold = np.partition(values, len(values) - depth)[len(values) - depth]
        valid = valid[values >= threshold]
    order = np.lexsort((doc_ids[valid], -scores[valid]))[:depth]
    chosen = valid[order]
    return doc_ids[chosen].astype(np.int64), scores[chosen].astype(np.float64)


def argsort_reversed_top_k(scores: np.ndarray, doc_ids: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """The original notebook's ranking of one score row: ``numpy.argsort(scores)[::-1][:depth]``.

    Every document is ranked (a document without a query token has score 0), and ties come
    out in the order numpy's default (unstable) sort leaves them, reversed. ``scores`` must be
    aligned with ``doc_ids`` in corpus order, as the notebook's positions were.
    """
    chosen = np.argsort(scores)[::-1][:depth]
    return doc_ids[chosen].astype(np.int64), scores[chosen].astype(np.float64)


def top_k_rows(
    scores: np.ndarray, valid: np.ndarray | None, doc_ids: np.ndarray, depth: int, *, above: float | None = None
) -> list[tuple[np.ndarray, np.ndarray]]:
    """:func:`top_k` for every row of a score matrix at once.

    ``valid`` marks candidates (``None``: all finite scores); with ``above`` set, only
    scores greater than it are candidates. Returns one (doc_ids, scores) pair per row,
    best first, under the tie rule; float32 scores come back as float64 (exactly).
    """
    n_rows, n_docs = scores.shape
    masked = scores if valid is None else np.where(valid, scores, -np.inf)
    if n_docs > depth:
        candidate = _candidates(masked, depth, above)
    else:
        candidate = np.ones_like(masked, dtype=bool) if above is None else masked > above
    cells = np.flatnonzero(candidate)
    values = masked.ravel()[cells]
    if above is None:
        finite = np.isfinite(values)
        cells, values = cells[finite], values[finite]
    rows, columns = np.divmod(cells, n_docs)
    order = np.lexsort((doc_ids[columns], -values, rows))
    rows, columns, values = rows[order], columns[order], values[order]
    bounds = np.searchsorted(rows, np.arange(n_rows + 1))
    return [
        (doc_ids[columns[a:b][:depth]].astype(np.int64), values[a:b][:depth].astype(np.float64))
        for a, b in zip(bounds[:-1], bounds[1:])
    ]


def _candidates(masked: np.ndarray, depth: int, above: float | None) -> np.ndarray:
    """Cells at or above a per-row floor no higher than the row's ``depth``-th best value.

    Every cell tied with the depth-th best stays a candidate, so the doc_id tie rule, not a
    partition algorithm, decides who is cut; any such superset of each row's best ``depth``
    ranks the same. The floor is cheap: the depth-th best of the maxima of disjoint column
    groups (at least ``depth`` cells reach it). Rows where it is loose (too many candidates)
    or unsafe (an infinite or NaN score) take the exact depth-th best value instead.
    """
    n_rows, n_docs = masked.shape
    groups = max(depth, min(4 * depth, n_docs // 8))
    width = n_docs // groups
    # Column j belongs to group j % groups: the maximum runs over contiguous rows of groups.
    maxima = masked[:, : groups * width].reshape(n_rows, width, groups).max(axis=1)
    floor = np.partition(maxima, groups - depth, axis=1)[:, groups - depth]
    candidate = masked >= floor[:, None]
    if above is not None:
        candidate &= masked > above
    exact = ~np.isfinite(floor) | ~np.isfinite(maxima.max(axis=1))
    if groups * width < n_docs:
        exact |= ~np.isfinite(masked[:, groups * width :].max(axis=1))
    exact |= np.count_nonzero(candidate, axis=1) > 8 * depth
    if exact.any():
        rows = masked[exact]
        threshold = np.partition(rows, n_docs - depth, axis=1)[:, n_docs - depth]
        exact_candidate = rows >= threshold[:, None]
        candidate[exact] = exact_candidate if above is None else exact_candidate & (rows > above)
    return candidate


def merge_top_k(parts: list[tuple[np.ndarray, np.ndarray]], depth: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``depth`` best of several ranked lists over disjoint documents, under the tie rule.

    Each part is a (doc_ids, scores) top list of its own documents; since the tie rule is a
    total order (score descending, then doc_id ascending), the best ``depth`` of the union
    are among the parts' best ``depth`` each, so the merge equals ranking all documents at once.
    """
    doc_ids = np.concatenate([ids for ids, _ in parts]).astype(np.int64)
    scores = np.concatenate([values for _, values in parts]).astype(np.float64)
    order = np.lexsort((doc_ids, -scores))[:depth]
    return doc_ids[order], scores[order]


def merge_query_hits(parts: list[QueryHits], depth: int) -> QueryHits:
    """One query's hits from several corpus shards merged (:func:`merge_top_k`); none: the first shard's reason."""
    found = [(hits.doc_ids, hits.scores) for hits in parts if len(hits)]
    if not found:
        return parts[0]
    return QueryHits(*merge_top_k(found, depth))
