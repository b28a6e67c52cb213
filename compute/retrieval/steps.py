"""Study job ``retrieval``: run the configured retrievers over the marts' corpus and queries.

Reads ``marts.dim_corpus_documents`` and the query sets (``marts.fct_query_variants`` for
pairs, ``marts.fct_squad_questions`` for SQuAD questions, ``marts.fct_corpus_queries`` for a
corpus query set: :mod:`compute.retrieval.query_sets`), runs BM25, dense and hybrid
retrieval (``compute/retrieval/``), and writes ``raw.retrieval_*`` in one transaction; BM25-only
configurations are retrieved and written chunk by chunk (:data:`QUERY_CHUNK` queries at a time),
so their memory does not grow with the query set. With ``[compute] engine = "ray"``
(:mod:`compute.common.engine`) the same chunks run on Ray workers (:mod:`compute.retrieval.ray_retrieval`;
with ``corpus_shards`` each worker holds one shard of the corpus: :mod:`compute.retrieval.ray_shards`)
and the driver writes what they return.
Everything that can be wrong with the configuration (unknown model, missing API key,
missing embeddings file, empty corpus) is reported before any retrieval starts.
"""

from __future__ import annotations

import json
import tempfile
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from compute.common.engine import ComputeSettings, compute_settings
from compute.retrieval.chunks import ChunkResult, prefetched_vectors, retrieve_chunk
from compute.retrieval.config import RetrievalConfig, config_from_settings
from compute.retrieval.config_section import RETRIEVAL
from compute.retrieval.embeddings import LocalProvider, provider_from_settings
from compute.retrieval.query_sets import gold_query_sets, load_corpora, load_query_sets, pin_read_versions
from compute.retrieval.runner import Corpus, Query
from compute.retrieval.shards import check_shardable
from compute.retrieval.writer import (
    RETRIEVAL_TABLES,
    ResultSpool,
    insert_rows,
    query_rows,
    write_relevant_documents,
    write_retriever_runs,
)
from ingest.common.embedding_cache import shared_embedding_cache, text_sha256
from warehouse.errors import UserError
from warehouse.random_seeds import derive_seed
from warehouse.settings import warehouse_paths
from warehouse.study import register_config_check, register_job
from warehouse.study_schema import register_config_section
from warehouse.transactions import transaction

# Queries retrieved and written at a time: their hits (x retrievers x depth) are all that is
# held in memory, about 1 M result rows per retriever at depth 100.
QUERY_CHUNK = 10_000
# On Ray a chunk's hits come back through the object store as one object (about 20 MB of
# Parquet for 2,000 queries x 5 BM25 settings at depth 100): smaller pieces keep the store's
# pages the driver maps small, and both workers busy until the last chunk.
RAY_QUERY_CHUNK = 2_000

register_config_section("retrieval", RETRIEVAL)


def drop_documents(corpora: dict[str, Corpus], fraction: float, *, seed: int) -> dict[str, Corpus]:
    """Leave a seeded random share of each split's documents out (an incomplete index, for drift studies)."""
    if fraction == 0:
        return corpora
    kept = {}
    for number, (split, corpus) in enumerate(sorted(corpora.items())):
        rng = np.random.default_rng([seed, number])
        n_drop = int(round(fraction * len(corpus.doc_ids)))
        dropped = set(rng.choice(len(corpus.doc_ids), size=n_drop, replace=False).tolist())
        keep = [i for i in range(len(corpus.doc_ids)) if i not in dropped]
        if not keep:
            raise UserError(f"drop_documents_fraction {fraction} leaves split {split!r} without documents")
        kept[split] = Corpus([corpus.doc_ids[i] for i in keep], [corpus.texts[i] for i in keep])
    return kept


def _retrieve_in_chunks(
    con,
    *,
    run_id: str,
    query_set: str,
    queries: list[Query],
    corpora: dict,
    config: RetrievalConfig,
    provider,
    cache,
    bm25_indexes: dict,
    query_set_kind: str,
    ray_pool=None,
) -> tuple[int, list, dict[str, int]]:
    """Retrieve and write one query set chunk by chunk, so only one chunk's hits are held in memory.

    The result rows of all chunks are inserted at the end with one statement from a Parquet
    spool in the warehouse folder (see :class:`ResultSpool`). Returns the result rows
    written, each retriever's output (hits dropped; wall time summed
    over the chunks; settings and index timings of the first chunk) and, per retriever, how
    many queries got a hit. Only BM25 is chunked: a dense retriever's embeddings and an ANN
    index are prepared per search, over the whole query set. With ``ray_pool``
    (:class:`compute.retrieval.ray_retrieval.RayRetrieval`) chunks of :data:`RAY_QUERY_CHUNK` run on Ray workers.
    """
    size = max(1, len(queries)) if "dense" in config.needs else QUERY_CHUNK if ray_pool is None else RAY_QUERY_CHUNK
    chunks = [queries[first : first + size] for first in range(0, len(queries), size)]
    written, totals, answered = 0, {}, {}
    home = warehouse_paths().home
    with tempfile.TemporaryDirectory(dir=home, prefix="retrieval-spool-") as folder:
        spool = ResultSpool(Path(folder))
        if ray_pool is None:
            results = (
                retrieve_chunk(
                    chunk,
                    corpora,
                    config,
                    run_id=run_id,
                    query_set=query_set,
                    provider=provider,
                    cache=cache,
                    lancedb_dir=warehouse_paths().lancedb_dir,
                    bm25_indexes=bm25_indexes,
                    add_results=spool.add,
                )
                for chunk in chunks
            )
        else:
            vectors = prefetched_vectors(queries, corpora, config, provider, cache)
            results = ray_pool.map(
                chunks, run_id=run_id, query_set=query_set, bm25_indexes=bm25_indexes, vectors=vectors
            )
        for chunk, result in zip(chunks, results):
            for encoded in result.parquet:
                spool.add_parquet(encoded)
            insert_rows(con, "retrieval_queries", query_rows(run_id, query_set, chunk, query_set_kind))
            if result.stats is not None:
                insert_rows(con, "retrieval_query_stats", result.stats)
            written += result.n_results
            _add_up(result, totals, answered)
        spool.insert(con)
    return written, list(totals.values()), answered


def _add_up(result: ChunkResult, totals: dict, answered: dict) -> None:
    """Add one chunk's outputs to the query set's totals."""
    for output in result.outputs:
        answered[output.retriever] = answered.get(output.retriever, 0) + result.answered[output.retriever]
        if output.retriever in totals:
            totals[output.retriever].seconds += output.seconds
        else:
            totals[output.retriever] = output


@contextmanager
def _compute_pool(engine: ComputeSettings, corpora: dict, config: RetrievalConfig):
    """Ray workers for the job when the study's engine is Ray (ended with it), else None."""
    if engine.engine != "ray":
        yield None
        return
    if engine.corpus_shards > 1:
        from compute.retrieval.ray_shards import RayShardedRetrieval as RayRetrieval  # imports Ray
    else:
        from compute.retrieval.ray_retrieval import RayRetrieval  # imports Ray: only when asked for

    pool = RayRetrieval(engine, corpora, config, lancedb_dir=warehouse_paths().lancedb_dir)
    try:
        yield pool
    finally:
        pool.close()


def prepare_dense(
    con, config: RetrievalConfig, run_id: str, corpora: dict, query_sets: dict, *, engine: ComputeSettings | None = None
):
    """Check the provider, import precomputed vectors, and preflight only if texts must be embedded.

    With the Ray engine a local model's provider is a :class:`~compute.retrieval.ray_embeddings.RayEmbedder`:
    what the cache lacks is embedded on Ray workers (an API provider's calls stay in this process).
    """
    provider = provider_from_settings({**config.embedding})
    provider.check()
    if engine is not None and engine.engine == "ray" and isinstance(provider, LocalProvider):
        from compute.retrieval.ray_embeddings import RayEmbedder  # imports Ray: only when asked for

        provider = RayEmbedder(provider, engine)
    for path in config.precomputed:
        if not Path(path).is_file():
            raise UserError(f"{path}: no such embeddings file ([retrieval.embedding] precomputed)")
    cache = shared_embedding_cache(provider.model_id)
    for path in config.precomputed:
        result = cache.import_parquet(path)
        con.execute(
            "insert into raw.run_sources values (?, ?, ?, ?)",
            [run_id, result.path, result.source_sha256, Path(path).stat().st_size],
        )
        print(f"  embeddings {Path(path).name}: {result.n_rows:,} vectors, {result.n_new:,} new in the cache")
    texts = {t for c in corpora.values() for t in c.texts}
    texts |= {q.text for queries in query_sets.values() for q in queries if q.text.strip()}
    cached = cache.known_shas()
    missing = sum(text_sha256(t) not in cached for t in texts)
    if missing:
        print(f"  {missing:,} text(s) to embed with {provider.model_id}")
        provider.preflight()
    return provider, cache


@register_config_check("retrieval")
def check_retrieval_settings(study) -> None:
    """Before any work: a study running ``retrieval`` has a ``[retrieval]`` table that resolves,
    highlighted cutoffs (``dialect_highlight_k``) within its depth, and retrievers that shard exactly
    when ``[compute] corpus_shards`` asks for shards."""
    if "retrieval" not in study.jobs:
        return
    config = config_from_settings(study.settings.get("retrieval"), resolve=study.resolve)
    compute = study.settings.get("compute") or {}
    if compute.get("engine") == "ray":
        check_shardable(config, compute.get("corpus_shards", 1))
    deeper = [k for k in study.run_parameters.get("dialect_highlight_k", []) if k > config.depth]
    if deeper:
        raise UserError(
            f"[parameters] dialect_highlight_k: {', '.join(map(str, deeper))} beyond [retrieval] depth = {config.depth}"
        )


@register_job(
    "retrieval",
    writes=RETRIEVAL_TABLES,
    reads=(
        "marts.fct_query_variants",
        "marts.fct_pair_gold_documents",
        "marts.fct_squad_questions",
        "marts.dim_corpus_documents",
        "marts.fct_corpus_queries",
        "marts.fct_retrieval_qrels",
    ),
)
def retrieval_job(con, study, run_id: str) -> None:
    """Run the study's ``[retrieval]`` configuration and write ``raw.retrieval_*`` for run ``run_id``."""
    config = config_from_settings(study.settings.get("retrieval"), resolve=study.resolve)
    query_sets, kinds = load_query_sets(con, config, study.limit, run_id=run_id)
    splits = {q.corpus_split for qs in query_sets.values() for q in qs}
    corpora_all = load_corpora(con, splits)
    corpora = drop_documents(
        corpora_all, config.drop_documents_fraction, seed=derive_seed(study.seed, "retrieval", "drop")
    )
    pair_sets = [n for n, k in kinds.items() if k == "pairs"]
    engine = compute_settings(study.settings)
    with transaction(con), _compute_pool(engine, corpora, config) as ray_pool:
        pin_read_versions(
            con,
            run_id,
            pair_sets=pair_sets,
            corpus_splits=splits,
            query_sets=tuple(dict.fromkeys([*query_sets, *gold_query_sets(con, pair_sets)])),
        )
        provider = cache = None
        if "dense" in config.needs:
            provider, cache = prepare_dense(con, config, run_id, corpora, query_sets, engine=engine)
        created = datetime.now(timezone.utc).replace(tzinfo=None)
        record = config.record() | {
            "seed": study.seed,
            "documents_indexed": {s: len(c.doc_ids) for s, c in corpora.items()},
            "embedding_model_id": getattr(provider, "model_id", None),
            "embedding": provider.describe() if provider else None,
        }
        bm25_indexes: dict = {}  # built once per (split, BM25 setting), shared by the query sets and chunks
        for name, queries in query_sets.items():
            written, outputs, answered = _retrieve_in_chunks(
                con,
                run_id=run_id,
                query_set=name,
                queries=queries,
                corpora=corpora,
                config=config,
                provider=provider,
                cache=cache,
                bm25_indexes=bm25_indexes,
                query_set_kind=kinds[name],
                ray_pool=ray_pool,
            )
            write_retriever_runs(
                con,
                run_id=run_id,
                query_set=name,
                corpus_splits={q.corpus_split for q in queries},
                n_queries=len(queries),
                outputs=outputs,
                n_answered=answered,
                config=config,
                record=record,
                created_at=created,
            )
            print(
                f"  {name}: {len(queries):,} queries; "
                + ", ".join(f"{o.retriever} {o.seconds:.2f}s" for o in outputs)
                + f"; {written:,} result rows"
            )
        write_relevant_documents(con, run_id=run_id, query_sets=query_sets, corpora=corpora_all)
        con.execute(
            "update raw.runs set parameters = json_merge_patch(parameters, ?) where run_id = ?",
            [json.dumps({"retrieval_resolved": record}, default=str), run_id],
        )
