"""BM25 that scores exactly like ``rank_bm25.BM25Okapi``, for every query of a run at once.

``rank_bm25`` loops in Python over every document for every query token. Here the
per-(term, document) weights are computed once into a sparse term-by-document matrix with
the same floating-point operations in the same order as ``BM25Okapi.get_scores``:

    idf(t) * (tf * (k1 + 1) / (tf + k1 * (1 - b + b * doc_len / avgdl)))

with ``idf(t) = log(N - df + 0.5) - log(df + 0.5)``, and every negative idf replaced by
``epsilon * mean idf`` (the mean over the whole vocabulary, summed in first-occurrence
order as rank_bm25 does). A query's score is then accumulated token by token in query
order, so a repeated token counts again and the sums are bit-for-bit rank_bm25's.

Only documents that contain at least one query token are hits (rank_bm25 would rank the
rest with score 0 in an order its sort leaves undefined). Ranking follows the tie rule of
:mod:`biaswh.compute.retrieval.ranking`: score descending, then doc_id ascending.
"""

from __future__ import annotations

import contextlib
import gc
from collections import defaultdict
from itertools import chain
from typing import Callable, Literal, Sequence

import numpy as np
from scipy import sparse

from biaswh.compute.retrieval import bm25_numba
from biaswh.compute.retrieval.bm25_statistics import BM25Parameters, CorpusStatistics, idf_values
from biaswh.compute.retrieval.ranking import EMPTY_QUERY, QueryHits, argsort_reversed_top_k, no_hits, top_k_rows
from biaswh.compute.retrieval.tokenize import RegexTokenizer
from biaswh.warehouse.errors import UserError

NO_TOKENS = "no tokens after tokenization"
NO_KNOWN_TOKENS = "no query token occurs in the corpus"
# Score matrices are built for this many (query, document) cells at most at a time.
MAX_CELLS_PER_BATCH = 8_000_000
# Queries scored together in one block: about 2 MB of float64 scores, which fits a CPU cache.
CACHE_CELLS = 262_144
# Terms in at least 1/16 of the documents also get dense weight rows, within this memory budget.
DENSE_TERM_FRACTION = 16
DENSE_BYTES = 256 * 1024 * 1024


@contextlib.contextmanager
def _collector_paused():
    """Python's cyclic garbage collector paused meanwhile: building one result object per query
    otherwise sets off full collections that walk every token list held in memory (on SQuAD
    train's 87,599 questions, a tenth of the search's time)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class BM25Index:
    """A BM25Okapi index over a fixed corpus.

    Parameters
    ----------
    documents
        The corpus: texts (tokenized with ``tokenizer``) or lists of tokens.
    doc_ids
        One id per document (default: 0..n-1); ties are broken by the lower id.
    tokenizer
        Turns a text into tokens (default: lowercase, ``[a-z0-9]+``).
    parameters
        k1, b and epsilon.
    statistics
        For an index over one shard of a corpus: the whole corpus's statistics, so that
        scores equal the unsharded index's (default: this corpus's own).
    """

    def __init__(
        self,
        documents: Sequence[str] | Sequence[Sequence[str]],
        *,
        doc_ids: Sequence[int] | None = None,
        tokenizer: Callable[[str], list[str]] | None = None,
        parameters: BM25Parameters = BM25Parameters(),
        statistics: CorpusStatistics | None = None,
    ) -> None:
        if len(documents) == 0:
            raise UserError("the corpus has no documents: BM25 needs at least one")
        self.tokenizer = tokenizer or RegexTokenizer()
        self.parameters = parameters
        self.doc_ids = np.arange(len(documents), dtype=np.int64) if doc_ids is None else np.asarray(doc_ids, np.int64)
        if len(self.doc_ids) != len(documents):
            raise ValueError("doc_ids and documents differ in length")
        # Term ids in first-occurrence order (rank_bm25's idf dict order): a missing token gets
        # the next id from the default factory, all inside C-level map().
        vocabulary: defaultdict[str, int] = defaultdict()
        vocabulary.default_factory = vocabulary.__len__
        token_lists = [self.tokenizer(d) if isinstance(d, str) else list(d) for d in documents]
        doc_lengths = [len(tokens) for tokens in token_lists]
        all_tokens = list(chain.from_iterable(token_lists))
        term_ids = np.fromiter(map(vocabulary.__getitem__, all_tokens), dtype=np.int64, count=len(all_tokens))
        doc_positions = np.repeat(np.arange(len(documents), dtype=np.int64), doc_lengths)
        self.vocabulary: dict[str, int] = dict(vocabulary)
        total_length = sum(doc_lengths)
        if total_length == 0 and statistics is None:
            raise UserError("the corpus has no tokens: every document is empty after tokenization")
        n_docs = len(documents)
        counts = sparse.csr_matrix(
            (np.ones(len(term_ids), dtype=np.int64), (term_ids, doc_positions)), shape=(len(self.vocabulary), n_docs)
        )
        counts.sum_duplicates()
        counts.sort_indices()
        if statistics is None:
            self.corpus_size = (n_docs, len(self.vocabulary))
            self.average_length = total_length / n_docs
            self.idf, self.average_idf = idf_values(np.diff(counts.indptr).tolist(), n_docs, parameters.epsilon)
        else:
            self.corpus_size = (statistics.n_docs, statistics.vocabulary_size)
            self.average_length, self.average_idf = statistics.average_length, statistics.average_idf
            self.idf = np.asarray([statistics.idf[term] for term in self.vocabulary], dtype=np.float64)
        self.weights = self._weights(counts, np.asarray(doc_lengths, dtype=np.int64))
        self.all_weights_positive = bool((self.weights.data > 0).all())
        self._densify_common_terms(np.diff(counts.indptr))

    def _densify_common_terms(self, document_frequencies: np.ndarray) -> None:
        # Terms in many documents (the, of, is) are kept as dense rows too: adding a dense
        # row is far cheaper than scattering thousands of postings.
        common = np.flatnonzero(document_frequencies * DENSE_TERM_FRACTION >= self.n_docs)
        common = common[np.argsort(-document_frequencies[common], kind="stable")][
            : max(0, DENSE_BYTES // (9 * self.n_docs))
        ]
        self._dense_slot = np.full(len(document_frequencies), -1, dtype=np.int64)
        self._dense_slot[common] = np.arange(len(common))
        self._dense_weights = self.weights[common].toarray()
        self._dense_present = None
        if not self.all_weights_positive:
            present = self.weights[common].copy()
            present.data = np.ones_like(present.data)
            self._dense_present = present.toarray().astype(bool)

    def _weights(self, counts: sparse.csr_matrix, doc_lengths: np.ndarray) -> sparse.csr_matrix:
        k1, b = self.parameters.k1, self.parameters.b
        tf = counts.data.astype(np.float64)
        length = doc_lengths[counts.indices]
        term_of_entry = np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))
        # The same operations in the same order as BM25Okapi.get_scores, entry by entry.
        saturation = tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / self.average_length))
        weights = self.idf[term_of_entry] * saturation
        return sparse.csr_matrix((weights, counts.indices.copy(), counts.indptr.copy()), shape=counts.shape)

    @property
    def n_docs(self) -> int:
        return len(self.doc_ids)

    def describe(self) -> dict:
        """What a run records about this index."""
        describe = getattr(self.tokenizer, "describe", None)
        return {
            "k1": self.parameters.k1,
            "b": self.parameters.b,
            "epsilon": self.parameters.epsilon,
            "tokenizer": describe() if describe else repr(self.tokenizer),
            "n_docs": self.corpus_size[0],
            "vocabulary_size": self.corpus_size[1],
            "average_length": self.average_length,
        }

    def _gather(self, terms: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The postings of ``terms``: per term its length, then all (document, weight) entries."""
        starts = self.weights.indptr[terms]
        lengths = self.weights.indptr[terms + 1] - starts
        offsets = np.repeat(starts - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
        entries = offsets + np.arange(lengths.sum())
        return lengths, self.weights.indices[entries], self.weights.data[entries]

    def score(self, queries: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray]:
        """Scores of every document for token lists, as rank_bm25's ``get_scores`` would give.

        Returns
        -------
        (scores, matched): float64 and bool arrays of shape (n_queries, n_docs); ``matched``
        marks documents holding at least one query token.
        """
        n_docs = self.n_docs
        # With every weight positive, "holds a query token" is "score > 0": no bookkeeping needed.
        track_matches = not self.all_weights_positive
        scores = np.zeros((len(queries), n_docs), dtype=np.float64)
        matched = np.zeros((len(queries), n_docs if track_matches else 0), dtype=bool)
        flat_scores, flat_matched = scores.reshape(-1), matched.reshape(-1)
        known = [[self.vocabulary[t] for t in query if t in self.vocabulary] for query in queries]
        # Blocks of queries small enough that their score rows stay in the CPU cache.
        block = max(1, CACHE_CELLS // n_docs)
        for first in range(0, len(queries), block):
            block_known = known[first : first + block]
            for position in range(max((len(q) for q in block_known), default=0)):
                # One term per query per step, added in query-token order as rank_bm25 adds.
                # Adding a dense row adds exact zeros where the term is absent: same sums.
                rows = np.asarray([first + i for i, q in enumerate(block_known) if len(q) > position], np.int64)
                terms = np.asarray([known[i][position] for i in rows], dtype=np.int64)
                dense_slot = self._dense_slot[terms]
                is_dense = dense_slot >= 0
                for row, slot in zip(rows[is_dense].tolist(), dense_slot[is_dense].tolist()):
                    scores[row] += self._dense_weights[slot]  # in place: one pass over the row
                    if track_matches:
                        matched[row] |= self._dense_present[slot]
                if not is_dense.all():
                    lengths, documents, weights = self._gather(terms[~is_dense])
                    cells = np.repeat(rows[~is_dense] * n_docs, lengths) + documents
                    flat_scores[cells] += weights
                    if track_matches:
                        flat_matched[cells] = True
        if not track_matches:
            matched = scores > 0
        return scores, matched

    def search(
        self, queries: Sequence[str], *, depth: int = 100, ranking: Literal["tie_rule", "seed_compatible"] = "tie_rule"
    ) -> list[QueryHits]:
        """Rank the corpus for each query text; all queries are scored in batches.

        A blank query, a query without tokens, or one whose tokens the corpus never uses
        gets no hits and a ``reason``. With ``ranking="seed_compatible"`` every non-blank
        query ranks every document as the original notebook did (see
        :func:`biaswh.compute.retrieval.ranking.argsort_reversed_top_k`).
        """
        if ranking == "seed_compatible":
            return self._search_seed_compatible(queries, depth)
        tokens = [self.tokenizer(text) for text in queries]
        hits = self.search_tokens(tokens, depth=depth, threads=bm25_numba.default_threads())
        return [no_hits(EMPTY_QUERY) if not text.strip() else found for text, found in zip(queries, hits)]

    def search_tokens(
        self, token_lists: Sequence[Sequence[str]], *, depth: int = 100, threads: int | None = None
    ) -> list[QueryHits]:
        """:meth:`search` for queries already tokenized (tie rule ranking).

        With numba installed, every weight positive and a batch large enough to repay loading
        it, the compiled kernel of :mod:`biaswh.compute.retrieval.bm25_numba` ranks them on
        ``threads`` threads (default one); otherwise NumPy does: the same hits, bit-identical scores.
        """
        if self.all_weights_positive and bm25_numba.pays(len(token_lists), self.n_docs):
            ranked = bm25_numba.rank_token_lists(self, token_lists, depth, threads=threads)
        else:
            ranked = []
            batch = max(1, MAX_CELLS_PER_BATCH // self.n_docs)
            for start in range(0, len(token_lists), batch):
                scores, matched = self.score(token_lists[start : start + batch])
                if self.all_weights_positive:  # matched is exactly score > 0
                    ranked += top_k_rows(scores, None, self.doc_ids, depth, above=0.0)
                else:
                    ranked += top_k_rows(scores, matched, self.doc_ids, depth)
        with _collector_paused():
            return [
                no_hits(NO_TOKENS)
                if not tokens
                else no_hits(NO_KNOWN_TOKENS)
                if len(found[0]) == 0
                else QueryHits(*found)
                for tokens, found in zip(token_lists, ranked)
            ]

    def _search_seed_compatible(self, queries: Sequence[str], depth: int) -> list[QueryHits]:
        results: list[QueryHits] = []
        batch = max(1, MAX_CELLS_PER_BATCH // self.n_docs)
        for start in range(0, len(queries), batch):
            chunk = list(queries[start : start + batch])
            scores, _ = self.score([self.tokenizer(text) for text in chunk])
            for row, text in enumerate(chunk):
                # The notebook returned nothing for a blank query and argsort's order otherwise.
                hits = argsort_reversed_top_k(scores[row], self.doc_ids, depth) if text.strip() else None
                results.append(QueryHits(*hits) if hits else no_hits(EMPTY_QUERY))
        return results
