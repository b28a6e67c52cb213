"""BM25 over the 18,891 SQuAD train documents for the 400 real pair queries.

Measured in the same run: the original study's loop (``rank_bm25.BM25Okapi``,
``get_scores`` and ``argsort`` per query) and our batched index, with the check that
every score is identical and the top-100 lists agree.
"""

from __future__ import annotations

import time

import numpy as np

from benchmarks.common import pair_queries, squad_train_corpus, write_result
from biaswh.compute.retrieval.bm25 import BM25Index
from biaswh.compute.retrieval.ranking import top_k
from biaswh.compute.retrieval.tokenize import RegexTokenizer

DEPTH = 100


def run() -> dict:
    from rank_bm25 import BM25Okapi

    documents, queries = squad_train_corpus(), pair_queries()
    tokenizer = RegexTokenizer()
    tokenized_documents = [tokenizer(d) for d in documents]
    tokenized_queries = [tokenizer(q) for q in queries]

    start = time.perf_counter()
    original = BM25Okapi(tokenized_documents)
    original_build = time.perf_counter() - start
    start = time.perf_counter()
    original_scores, original_top = [], []
    for query in tokenized_queries:
        scores = original.get_scores(query)
        original_top.append(np.argsort(scores)[::-1][:DEPTH])
        original_scores.append(scores)
    original_query = time.perf_counter() - start

    start = time.perf_counter()
    index = BM25Index(tokenized_documents, tokenizer=tokenizer)
    ours_build = time.perf_counter() - start
    start = time.perf_counter()
    hits = index.search(queries, depth=DEPTH)
    ours_query = time.perf_counter() - start

    ours_scores, matched = index.score(tokenized_queries)
    original_scores = np.vstack(original_scores)
    doc_ids = np.arange(len(documents))
    same_top = sum(
        np.array_equal(h.doc_ids, top_k(np.where(m, s, -np.inf), doc_ids, DEPTH)[0])
        for h, s, m in zip(hits, original_scores, matched)
    )
    # The original's argsort order can differ only inside runs of tied scores.
    same_top_sets = sum(set(h.doc_ids.tolist()) == set(t.tolist()) for h, t in zip(hits, original_top))
    return {
        "n_documents": len(documents),
        "n_queries": len(queries),
        "depth": DEPTH,
        "original_loop": {"build_seconds": original_build, "query_seconds": original_query},
        "batched_index": {"build_seconds": ours_build, "query_seconds": ours_query},
        "query_speedup": original_query / ours_query,
        "end_to_end_speedup": (original_build + original_query) / (ours_build + ours_query),
        "scores_bit_identical": bool(np.array_equal(ours_scores, original_scores)),
        "max_abs_score_difference": float(np.abs(ours_scores - original_scores).max()),
        "queries_with_identical_top_k_under_tie_rule": int(same_top),
        "queries_with_same_top_k_set_as_argsort": int(same_top_sets),
    }


def main() -> None:
    write_result("bm25_speed", run())


if __name__ == "__main__":
    main()
