"""Study job ``retrieval``: run the configured retrievers over the marts' corpus and queries.

Reads ``marts.dim_corpus_documents`` and the query sets (``marts.fct_query_variants`` for
pairs, ``marts.fct_squad_questions`` for SQuAD questions, ``marts.fct_corpus_queries`` for a
corpus query set: :mod:`biaswh.compute.retrieval.query_sets`), runs BM25, dense and hybrid
retrieval (``compute/retrieval/``), and writes ``raw.retrieval_*`` in one transaction; BM25-only
configurations are retrieved and written chunk by chunk,
so their memory does not grow with the query set. With ``[compute] engine = "ray"`` the same
chunks run on Ray workers (:mod:`biaswh.compute.retrieval.query_set_retrieval`) and the driver writes
what they return.
Everything that can be wrong with the configuration (unknown model, missing API key,
missing embeddings file, empty corpus) is reported before any retrieval starts.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from biaswh.compute.common.engine import ComputeSettings, compute_settings
from biaswh.compute.retrieval.config import RetrievalConfig, config_from_settings
from biaswh.compute.retrieval.config_section import RETRIEVAL
from biaswh.compute.retrieval.embeddings import LocalProvider, provider_from_settings
from biaswh.compute.retrieval.query_set_retrieval import compute_pool, retrieve_query_set
from biaswh.compute.retrieval.query_sets import gold_query_sets, load_corpora, load_query_sets, pin_read_versions
from biaswh.compute.retrieval.runner import Corpus
from biaswh.compute.retrieval.shards import check_shardable
from biaswh.compute.retrieval.writer import (
    RETRIEVAL_TABLES,
    write_relevant_documents,
)
from biaswh.ingest.common.embedding_cache import shared_embedding_cache, text_sha256
from biaswh.warehouse.database.transactions import transaction
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.study import register_config_check, register_job
from biaswh.warehouse.settings.random_seeds import derive_seed
from biaswh.warehouse.settings.study_schema import register_config_section

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


def prepare_dense(
    con, config: RetrievalConfig, run_id: str, corpora: dict, query_sets: dict, *, engine: ComputeSettings | None = None
):
    """Check the provider, import precomputed vectors, and preflight only if texts must be embedded.

    With the Ray engine a local model's provider is a :class:`~biaswh.compute.retrieval.ray_embeddings.RayEmbedder`:
    what the cache lacks is embedded on Ray workers (an API provider's calls stay in this process).
    """
    provider = provider_from_settings({**config.embedding})
    provider.check()
    # A vector file recording another version of a local model is skipped (its folder's hash differs);
    # the folder is hashed only when a file records a hash (0.5 s for MiniLM).
    model_sha256 = provider.model_sha256 if isinstance(provider, LocalProvider) else None
    if engine is not None and engine.engine == "ray" and isinstance(provider, LocalProvider):
        from biaswh.compute.retrieval.ray_embeddings import RayEmbedder  # imports Ray: only when asked for

        provider = RayEmbedder(provider, engine)
    for path in config.precomputed:
        if not Path(path).is_file():
            raise UserError(f"{path}: no such embeddings file ([retrieval.embedding] precomputed)")
    cache = shared_embedding_cache(provider.model_id)
    for path in config.precomputed:
        result = cache.import_parquet(path, model_sha256=model_sha256)
        con.execute(
            "insert into raw.run_sources values (?, ?, ?, ?)",
            [run_id, result.path, result.source_sha256, Path(path).stat().st_size],
        )
        print(f"  {result.describe()}")
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


def study_retrieval_config(study) -> RetrievalConfig:
    """The study's resolved ``[retrieval]`` table, its ANN index seeded from the study seed."""
    config = config_from_settings(study.settings.get("retrieval"), resolve=study.resolve)
    return replace(config, ann_seed=derive_seed(study.seed, "retrieval", "ann"))


@register_job(
    "retrieval",
    writes=RETRIEVAL_TABLES,
    reads=(
        "marts.fct_query_variants",
        "marts.fct_pair_gold_documents",
        "marts.fct_squad_questions",
        "marts.dim_corpus_documents",
        "marts.fct_corpus_queries",
        "marts.fct_evaluation_qrels",
    ),
)
def retrieval_job(con, study, run_id: str) -> None:
    """Run the study's ``[retrieval]`` configuration and write ``raw.retrieval_*`` for run ``run_id``."""
    config = study_retrieval_config(study)
    query_sets, kinds = load_query_sets(con, config, study.limit, run_id=run_id)
    splits = {q.corpus_split for qs in query_sets.values() for q in qs}
    corpora_all = load_corpora(con, splits)
    corpora = drop_documents(
        corpora_all, config.drop_documents_fraction, seed=derive_seed(study.seed, "retrieval", "drop")
    )
    pair_sets = [n for n, k in kinds.items() if k == "pairs"]
    engine = compute_settings(study.settings)
    with transaction(con), compute_pool(engine, corpora, config) as ray_pool:
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
            written, outputs = retrieve_query_set(
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
