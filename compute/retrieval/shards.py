"""Retrieval over corpus shards, merged to exactly the unsharded ranking (``[compute] corpus_shards``).

A corpus too large for one worker is cut into contiguous document ranges of nearly equal size.
Exact dense search multiplies fixed tiles of :data:`biaswh.compute.retrieval.dense.DOC_TILE` documents,
and a float32 product's last bits depend on its shapes, so a shard also carries the texts of the
other documents of its first and last tiles: it scores each tile whole, as the unsharded index
does, and ranks only its own documents. Each shard counts its terms; the driver adds the
counts up into the whole corpus's BM25 statistics (:func:`corpus_statistics`: document
frequencies in the whole corpus's first-occurrence order, idf, average length), so every
shard's weights, and so every score, equal the unsharded index's bit for bit. Each shard
ranks its own documents; :func:`merged_outputs` keeps the best ``depth`` of their lists
under the tie rule, which is the unsharded top ``depth``; hybrids are fused from the merged
lists as the local engine fuses them.

An ANN index is not sharded: it is trained on the whole corpus (:mod:`biaswh.compute.retrieval.ann`
says why it cannot be split), built once by the driver, and searched for each chunk of queries
beside the shards; the shards' merged exact dense lists are what its recall is measured against
(:func:`with_ann_hits`), as the unsharded engine measures it. What cannot shard exactly is refused
(:func:`check_shardable`): the seed-compatible BM25 ranking (numpy's unstable argsort over the
whole corpus).
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from biaswh.compute.retrieval.ann import AnnTable, ann_search, combined_report, recall_report
from biaswh.compute.retrieval.bm25 import BM25Index
from biaswh.compute.retrieval.bm25_statistics import BM25Parameters, CorpusStatistics, idf_values
from biaswh.compute.retrieval.config import SEED_COMPATIBLE_BM25, RetrievalConfig
from biaswh.compute.retrieval.dense import DOC_TILE
from biaswh.compute.retrieval.ranking import EMPTY_QUERY, merge_query_hits, no_hits
from biaswh.compute.retrieval.runner import Corpus, Query, RetrieverOutput, bm25_index_key, bm25_settings, with_hybrids
from biaswh.compute.retrieval.tokenize import RegexTokenizer
from biaswh.warehouse.errors import UserError

SHARDS_KEY = "[compute] corpus_shards"


def check_shardable(config: RetrievalConfig, shards: int) -> None:
    """Refuse a retrieval configuration whose results would change when its corpus is sharded."""
    if shards <= 1:
        return
    if SEED_COMPATIBLE_BM25 in config.retrievers:
        raise UserError(
            f"{SHARDS_KEY}: {shards} cannot rank {SEED_COMPATIBLE_BM25} exactly (its order is numpy's "
            "argsort over the whole corpus); use corpus_shards = 1"
        )


def shard_bounds(n_docs: int, shards: int, *, split: str) -> list[tuple[int, int]]:
    """``shards`` contiguous (start, stop) document ranges of nearly equal size, none empty."""
    if n_docs < shards:
        raise UserError(
            f"{SHARDS_KEY}: {shards} is more shards than split {split!r} has documents ({n_docs:,}): "
            f"use at most {max(1, n_docs)}"
        )
    cuts = [number * n_docs // shards for number in range(shards + 1)]
    return list(zip(cuts[:-1], cuts[1:]))


def check_shard_sizes(corpora: dict[str, Corpus], shards: int) -> None:
    """Refuse ``shards`` when a split has fewer documents (what :func:`shard_corpora` refuses, without cutting)."""
    for split, corpus in sorted(corpora.items()):
        shard_bounds(len(corpus.doc_ids), shards, split=split)


def shard_corpora(corpora: dict[str, Corpus], shards: int) -> list[dict[str, Corpus]]:
    """Each shard's part of every split (shard ``n`` holds the ``n``-th document range of each), with
    the texts of the rest of its first and last dense tiles."""
    parts: list[dict[str, Corpus]] = [{} for _ in range(shards)]
    for split, corpus in sorted(corpora.items()):
        n_docs = len(corpus.doc_ids)
        for number, (start, stop) in enumerate(shard_bounds(n_docs, shards, split=split)):
            first_tile, past_last_tile = start // DOC_TILE * DOC_TILE, min(n_docs, -(-stop // DOC_TILE) * DOC_TILE)
            parts[number][split] = Corpus(
                corpus.doc_ids[start:stop],
                corpus.texts[start:stop],
                tile_before=tuple(corpus.texts[first_tile:start]),
                tile_after=tuple(corpus.texts[stop:past_last_tile]),
            )
    return parts


def tokenizer_of(config: RetrievalConfig) -> RegexTokenizer:
    """The tokenizer every BM25 index of ``config`` uses."""
    return RegexTokenizer(config.tokenizer["pattern"], config.tokenizer["lowercase"])


def term_counts(corpora: dict[str, Corpus], config: RetrievalConfig) -> dict[str, tuple[dict[str, int], int, int]]:
    """Per split of one shard: each term's document frequency (first-occurrence order), tokens, documents."""
    tokenizer = tokenizer_of(config)
    counts = {}
    for split, corpus in corpora.items():
        frequencies: dict[str, int] = {}
        n_tokens = 0
        for text in corpus.texts:
            tokens = tokenizer(text)
            n_tokens += len(tokens)
            for term in dict.fromkeys(tokens):
                frequencies[term] = frequencies.get(term, 0) + 1
        counts[split] = (frequencies, n_tokens, len(corpus.texts))
    return counts


def corpus_statistics(shard_counts: list[dict], config: RetrievalConfig) -> list[dict[tuple, CorpusStatistics]]:
    """Per shard, per BM25 index key: the whole corpus's statistics, restricted to the shard's terms.

    The shards are contiguous and in corpus order, so adding their counts up shard by shard
    visits the terms in the whole corpus's first-occurrence order: the order in which the
    unsharded index sums its idf values.
    """
    statistics: list[dict[tuple, CorpusStatistics]] = [{} for _ in shard_counts]
    for split in sorted(shard_counts[0]):
        frequencies: dict[str, int] = {}
        n_tokens = n_docs = 0
        for counts in shard_counts:
            shard_frequencies, shard_tokens, shard_docs = counts[split]
            for term, frequency in shard_frequencies.items():
                frequencies[term] = frequencies.get(term, 0) + frequency
            n_tokens, n_docs = n_tokens + shard_tokens, n_docs + shard_docs
        if n_tokens == 0:
            raise UserError("the corpus has no tokens: every document is empty after tokenization")
        for parameters in bm25_settings(config):
            idf, average_idf = idf_values(list(frequencies.values()), n_docs, parameters["epsilon"])
            by_term = dict(zip(frequencies, idf.tolist()))
            for number, counts in enumerate(shard_counts):
                statistics[number][bm25_index_key(split, parameters)] = CorpusStatistics(
                    n_docs=n_docs,
                    vocabulary_size=len(frequencies),
                    average_length=n_tokens / n_docs,
                    average_idf=average_idf,
                    idf={term: by_term[term] for term in counts[split][0]},
                )
    return statistics


def shard_bm25_indexes(
    corpora: dict[str, Corpus], statistics: dict[tuple, CorpusStatistics], config: RetrievalConfig
) -> dict[tuple, BM25Index]:
    """One shard's BM25 indexes (one per split and BM25 setting), weighted by the whole corpus's statistics."""
    tokenizer = tokenizer_of(config)
    return {
        key: BM25Index(
            corpora[key[0]].texts,
            doc_ids=corpora[key[0]].doc_ids,
            tokenizer=tokenizer,
            parameters=BM25Parameters(**dict(key[1])),
            statistics=shard_statistics,
        )
        for key, shard_statistics in statistics.items()
    }


def base_config(config: RetrievalConfig) -> RetrievalConfig:
    """What a shard runs: the base retrievers and BM25 settings, no fusion (fused after the merge), and
    exact dense search (an ANN index is searched whole, beside the shards)."""
    base = tuple(name for name in ("bm25", "dense") if name in config.needs)
    return dataclasses.replace(
        config, retrievers=(*base, *config.bm25_points), sweep_weights=(), sweep_rrf_k=(), ann_index="none"
    )


def merged_outputs(
    shard_outputs: list[list[RetrieverOutput]],
    config: RetrievalConfig,
    *,
    ann: tuple[RetrieverOutput, list[Query], dict[str, AnnTable]] | None = None,
) -> list[RetrieverOutput]:
    """The shards' outputs of one chunk merged per retriever to the top ``depth``, then fused as configured.

    A query's latency and a retriever's wall time are the slowest shard's (the shards run side by side).
    ``ann``: the chunk's hits through the whole corpus's ANN index, its queries and the index's
    tables; they replace the merged exact dense hits (:func:`with_ann_hits`) before fusion.
    """
    merged = []
    for outputs in zip(*shard_outputs):
        hits = [merge_query_hits(list(parts), config.depth) for parts in zip(*(o.hits for o in outputs))]
        latency = [
            None if all(value is None for value in values) else max(v for v in values if v is not None)
            for values in zip(*(o.latency_ms for o in outputs))
        ]
        first, seconds = outputs[0], max(output.seconds for output in outputs)
        merged.append(RetrieverOutput(first.retriever, first.family, hits, latency, seconds, first.details))
    base = {output.retriever: output for output in merged if output.retriever in ("bm25", "dense")}
    if ann is not None:
        base["dense"] = with_ann_hits(base["dense"], *ann, depth=config.depth)
    return with_hybrids(base, [output for output in merged if output.retriever not in base], config)


def with_ann_hits(
    exact: RetrieverOutput, found: RetrieverOutput, queries: list[Query], tables: dict[str, AnnTable], *, depth: int
) -> RetrieverOutput:
    """``found`` (a chunk's ANN hits) with each split's recall against the ``exact`` hits of its queries,
    in the details the unsharded engine writes (``ann_reports``, ``ann_recall``)."""
    reports = []
    for split, table in sorted(tables.items()):
        rows = asked_rows(queries, split)
        if rows:
            report = recall_report(table, [found.hits[i] for i in rows], [exact.hits[i] for i in rows], depth=depth)
            reports.append(dataclasses.asdict(report) | {"corpus_split": split})
    if reports:
        found.details |= {"ann_reports": reports, "ann_recall": combined_report(reports)["recall"]}
    return found


def asked_rows(queries: list[Query], split: str) -> list[int]:
    """The positions of ``queries``' non-blank queries over ``split`` (those dense search asks)."""
    return [number for number, query in enumerate(queries) if query.corpus_split == split and query.text.strip()]


def ann_hits(
    queries: list[Query], vectors, tables: dict[str, AnnTable], *, lancedb_dir: str | Path, depth: int
) -> RetrieverOutput:
    """A chunk's dense hits through each split's ANN index (``vectors``: the queries' cached vectors), as
    the first worker of a shard group searches them beside its shard; recall is added after the merge."""
    found = RetrieverOutput("dense", "dense", [no_hits(EMPTY_QUERY)] * len(queries), [None] * len(queries))
    found.details["n_embedded"] = 0  # the driver embedded every text before the chunks went out
    for split, table in sorted(tables.items()):
        rows = asked_rows(queries, split)
        if not rows:
            continue
        started = time.perf_counter()
        query_vectors = vectors.vectors_for([queries[number].text for number in rows], None)[0]
        hits = ann_search(table, query_vectors, lancedb_dir=lancedb_dir, depth=depth)
        seconds = time.perf_counter() - started
        for number, query_hits in zip(rows, hits):
            found.hits[number], found.latency_ms[number] = query_hits, seconds * 1000 / len(rows)
        found.seconds += seconds
    return found
