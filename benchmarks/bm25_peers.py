"""BM25 beside its fastest Python peer, bm25s, in one process, on the same tokens.

For SQuAD train (18,891 contexts, all 87,599 train questions) and a synthetic corpus of one
million documents made of SQuAD sentences (:mod:`benchmarks.bm25_corpora`), top 100: build and
query seconds of our ``BM25Index`` (with its numba kernel, and its NumPy path) and of bm25s
0.3.16 (``method="robertson"``, k1 1.5, b 0.75) with its NumPy and its numba backends, on one
thread and on all cores. A first small query of each compiled kernel is timed apart
(``warm_up_seconds``): both cache their compiled code. Ours must stay bit-identical to
rank_bm25: checked on the 400 real pair queries and a seeded 1,000 of the other questions
(SQuAD), and on the synthetic corpus as the NumPy path's equal plus rank_bm25 itself on a few
queries. The machine's load average before and after says whether it was quiet.
"""

from __future__ import annotations

import contextlib
import gc
import os
import time

import numpy as np

from benchmarks import bm25_corpora
from benchmarks.common import write_result
from biaswh.compute.retrieval import bm25_numba
from biaswh.compute.retrieval.bm25 import BM25Index
from biaswh.compute.retrieval.ranking import top_k

DEPTH = 100
CHECKED_QUESTIONS = 1_000
SYNTHETIC_QUERIES = 2_000
SYNTHETIC_RANK_BM25_QUERIES = 5
SEED = 56


def _seconds(function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return time.perf_counter() - start, result


def _timed_query(entry: dict, threads: int, function, /, *args, **kwargs):
    """Wall seconds of one query run, and on one thread its CPU seconds (steadier on a shared machine)."""
    cpu = time.process_time()
    seconds, result = _seconds(function, *args, **kwargs)
    entry[f"query_seconds_{threads}_thread"] = round(seconds, 3)
    if threads == 1:
        entry["query_cpu_seconds_1_thread"] = round(time.process_time() - cpu, 3)
    return result


def _bm25s_index(documents: list[list[str]], backend: str):
    import bm25s

    retriever = bm25s.BM25(method="robertson", k1=1.5, b=0.75, backend=backend)
    retriever.index(documents, show_progress=False)
    return retriever


def _bm25s_query(retriever, queries: list[list[str]], threads: int):
    return retriever.retrieve(queries, k=DEPTH, show_progress=False, n_threads=threads)


@contextlib.contextmanager
def _kernel_setting(value: str):
    """BIASWH_BM25_NUMBA set to ``value`` ("1": every batch on the kernel, "0": on NumPy) meanwhile."""
    previous = os.environ.get(bm25_numba.DISABLE_VARIABLE)
    os.environ[bm25_numba.DISABLE_VARIABLE] = value
    try:
        yield
    finally:
        if previous is None:
            del os.environ[bm25_numba.DISABLE_VARIABLE]
        else:
            os.environ[bm25_numba.DISABLE_VARIABLE] = previous


def _ours(index: BM25Index, queries: list[list[str]], threads: int = 1, *, kernel: str = "1"):
    with _kernel_setting(kernel):
        return index.search_tokens(queries, depth=DEPTH, threads=threads)


def _same_hits(ours, theirs) -> int:
    """How many queries have the same doc_ids and bit-identical scores in both hit lists."""
    return sum(
        np.array_equal(a.doc_ids, b.doc_ids) and np.array_equal(a.scores, b.scores) and a.reason == b.reason
        for a, b in zip(ours, theirs, strict=True)
    )


def _rank_bm25_check(documents, queries, hits) -> dict:
    """Our hits against rank_bm25's ``get_scores`` ranked under the tie rule, query by query."""
    from rank_bm25 import BM25Okapi

    oracle = BM25Okapi(documents)
    # With every idf positive a document holds a query token exactly when its score is positive.
    assert min(oracle.idf.values()) > 0, "an idf is not positive: hits are not the positive scores"
    positions = np.arange(len(documents))
    identical, largest_difference = 0, 0.0
    for tokens, found in zip(queries, hits, strict=True):
        expected = oracle.get_scores(tokens)
        want_ids, want_scores = top_k(np.where(expected > 0, expected, -np.inf), positions, DEPTH)
        identical += bool(np.array_equal(found.doc_ids, want_ids) and np.array_equal(found.scores, want_scores))
        if len(found) == len(want_ids):
            largest_difference = max(largest_difference, float(np.abs(found.scores - want_scores).max(initial=0)))
    return {"queries": len(queries), "bit_identical": identical, "max_abs_score_difference": largest_difference}


def _profile(documents, queries) -> dict:
    """Where our kernel's query time goes: the share of queries it had to score on every document
    (the rest are ranked on the documents holding one of their rarer terms), and one-thread
    seconds with that shortcut switched off (every query scored in full)."""
    index = BM25Index(documents)
    terms, offsets = bm25_numba.known_term_ids(index, queries)
    *_, in_full = bm25_numba.rank_terms(index, terms, offsets, DEPTH)
    seconds, _ = _seconds(bm25_numba.rank_terms, index, terms, offsets, DEPTH, candidates=False)
    return {
        "queries_scored_on_every_document_share": round(float(in_full.mean()), 4),
        "query_seconds_1_thread_every_query_scored_in_full": round(seconds, 3),
    }


def _top10_overlap(hits, bm25s_ids) -> float:
    shared = [len(set(h.doc_ids[:10].tolist()) & set(ids[:10].tolist())) for h, ids in zip(hits, bm25s_ids)]
    return round(float(np.mean(shared)) / 10, 4)


def _race(documents, queries, thread_counts) -> tuple[dict, dict]:
    """Build and query seconds of the four engines, and every engine's hits (threads: the last count)."""
    timings, hits = {}, {}
    build, index = _seconds(BM25Index, documents)
    # The first call of each compiled kernel (serial and parallel) loads or compiles it: timed apart.
    warm = sum(_seconds(_ours, index, queries[:10], t)[0] for t in thread_counts)
    entry = timings["ours_numba"] = {"build_seconds": round(build, 3), "warm_up_seconds": round(warm, 3)}
    for threads in thread_counts:
        hits["ours_numba"] = _timed_query(entry, threads, _ours, index, queries, threads)
    timings["ours_numpy"] = {"build_seconds": round(build, 3)}
    hits["ours_numpy"] = _timed_query(timings["ours_numpy"], 1, _ours, index, queries, kernel="0")
    del index
    gc.collect()
    for backend in ("numpy", "numba"):
        build, retriever = _seconds(_bm25s_index, documents, backend)
        warm = sum(_seconds(_bm25s_query, retriever, queries[:10], t)[0] for t in thread_counts)
        entry = timings[f"bm25s_{backend}"] = {"build_seconds": round(build, 3), "warm_up_seconds": round(warm, 3)}
        for threads in thread_counts:
            found = _timed_query(entry, threads, _bm25s_query, retriever, queries, threads)
        hits[f"bm25s_{backend}"] = np.asarray(found.documents)
        del retriever
        gc.collect()
    return timings, hits


def _verdict(timings: dict, thread_counts) -> dict:
    """Ours (numba kernel) against bm25s's numba backend: ratios below 1 are ours faster; each miss named."""
    ours, peer = timings["ours_numba"], timings["bm25s_numba"]
    ratios = {"build": round(ours["build_seconds"] / peer["build_seconds"], 3)}
    for threads in thread_counts:
        key = f"query_seconds_{threads}_thread"
        ratios[f"query_{threads}_thread"] = round(ours[key] / peer[key], 3)
    ratios["query_cpu_1_thread"] = round(ours["query_cpu_seconds_1_thread"] / peer["query_cpu_seconds_1_thread"], 3)
    misses = [f"{name}: ours takes {ratio}x bm25s numba's time" for name, ratio in ratios.items() if ratio > 1]
    return {"ours_over_bm25s_numba": ratios, "at_least_as_fast": not misses, "misses": misses}


def squad_section(n_checked: int = CHECKED_QUESTIONS) -> dict:
    corpus = bm25_corpora.squad_tokens()
    documents, questions = corpus["documents"], corpus["questions"]
    threads = sorted({1, os.cpu_count() or 1})
    timings, hits = _race(documents, questions, threads)
    checked, positions = bm25_corpora.seeded_sample(questions, n_checked, SEED)
    index = BM25Index(documents)
    checked_hits = index.search_tokens(corpus["pair_queries"] + checked, depth=DEPTH)
    return {
        "corpus": "SQuAD v1.1 train contexts (real)",
        "n_documents": len(documents),
        "n_queries": len(questions),
        "timings": timings,
        "verdict": _verdict(timings, threads),
        "numpy_path_equal_to_numba_kernel": _same_hits(hits["ours_numba"], hits["ours_numpy"]),
        "rank_bm25_identity": {
            "pair_queries_and_seeded_questions": _rank_bm25_check(
                documents, corpus["pair_queries"] + checked, checked_hits
            ),
            "seed": SEED,
        },
        "bm25s_numba_top10_overlap_with_ours": _top10_overlap(hits["ours_numba"], hits["bm25s_numba"]),
        "ours_profile": _profile(documents, questions),
    }


def synthetic_section(n_documents: int = bm25_corpora.SYNTHETIC_DOCUMENTS, n_queries: int = SYNTHETIC_QUERIES) -> dict:
    documents = bm25_corpora.synthetic_documents(n_documents)
    questions, _ = bm25_corpora.seeded_sample(bm25_corpora.squad_tokens()["questions"], n_queries, SEED)
    threads = sorted({1, os.cpu_count() or 1})
    timings, hits = _race(documents, questions, threads)
    few = questions[:SYNTHETIC_RANK_BM25_QUERIES]
    return {
        "corpus": f"synthetic: {n_documents:,} documents of 1-3 seeded SQuAD train sentences (seed "
        f"{bm25_corpora.SYNTHETIC_SEED})",
        "n_documents": len(documents),
        "n_tokens": sum(map(len, documents)),
        "n_queries": len(questions),
        "timings": timings,
        "verdict": _verdict(timings, threads),
        "numpy_path_equal_to_numba_kernel": _same_hits(hits["ours_numba"], hits["ours_numpy"]),
        "rank_bm25_identity": _rank_bm25_check(documents, few, hits["ours_numba"][: len(few)]),
        "ours_profile": _profile(documents, questions),
    }


def run() -> dict:
    import bm25s
    import numba

    before = bm25_corpora.load_reading()
    squad = squad_section()
    synthetic = synthetic_section()
    after = bm25_corpora.load_reading()
    return {
        "depth": DEPTH,
        "versions": {"bm25s": bm25s.__version__, "numba": numba.__version__},
        "machine_load": bm25_corpora.quiet_verdict(before, after, os.cpu_count() or 1),
        "squad_train": squad,
        "synthetic_1m": synthetic,
    }


def main() -> None:
    write_result("bm25_peers", run())


if __name__ == "__main__":
    main()
