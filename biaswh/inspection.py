"""Looking inside a study: ``biaswh peek`` (one pair, as stored) and ``biaswh search`` (by hand).

Both read what the warehouse holds. ``peek`` only reads marts; ``search`` rebuilds the
study's retrievers over its corpus with the study's own ``[retrieval]`` settings (and the
embedding cache, so known texts are not embedded again).
"""

from __future__ import annotations

import dataclasses
import textwrap

from warehouse.connection import open_warehouse
from warehouse.errors import UserError
from warehouse.runs import latest_succeeded_study_run
from warehouse.settings import warehouse_paths
from warehouse.study import load_study

SNIPPET = 110


def _snippet(text: str | None) -> str:
    return textwrap.shorten(text or "", SNIPPET, placeholder=" …")


def peek(study_path: str, pair_id: str, *, k: int = 5) -> str:
    """A pair's variants, each retriever's top k with scores, and where the gold document sits.

    Reads the study's latest succeeded run (:func:`warehouse.runs.latest_succeeded_study_run`).
    """
    study = load_study(study_path, check_steps=False)
    with open_warehouse(read_only=True) as con:
        run_id, finished_at = latest_succeeded_study_run(con, study)
        variants = con.execute(
            "select v.pair_set, v.variant, v.query_text_raw, v.query_text, v.gold_doc_id, v.corpus_split,"
            " v.mapping_status"
            " from marts.fct_query_variants v where v.pair_id = ? and v.pair_set in"
            " (select distinct query_set from staging.stg_retrieval__queries where run_id = ?)"
            " order by v.pair_set, v.variant",
            [pair_id, run_id],
        ).fetchall()
        if not variants:
            raise UserError(f"pair {pair_id!r} is not among the pairs of study run {run_id}")
        pair_set, _, _, _, gold, split, status = variants[0]
        variants = [v for v in variants if v[0] == pair_set]  # the first pair set holding this pair id
        # A pair judged by a query's qrels has no one gold document: its gold is every relevant one.
        golds = (
            [gold]
            if gold is not None
            else [
                r[0]
                for r in con.execute(
                    "select doc_id from intermediate.int_retrieval_judgments_pinned where run_id = ? and query_set = ?"
                    " and query_id = ? and relevance > 0 order by relevance desc, doc_id",
                    [run_id, pair_set, pair_id],
                ).fetchall()
            ]
        )
        lines = [
            f"study {study.name}, run {run_id} (the latest that succeeded, finished"
            f" {finished_at:%Y-%m-%d %H:%M:%S} UTC), pair set {pair_set}, pair {pair_id} ({status})",
        ]
        for doc_id in golds or [None]:
            gold_text = con.execute(
                "select document_text from marts.dim_corpus_documents where split = ? and doc_id = ?", [split, doc_id]
            ).fetchone()
            lines.append(f"gold document {doc_id}: {_snippet(gold_text[0] if gold_text else None)}")
        lines.append("")
        for _, variant, raw, cleaned, *_ in variants:
            lines.append(f"  {variant}: {cleaned}" + (f"   (raw: {raw})" if raw != cleaned else ""))
        ranks = con.execute(
            "select retriever, variant, gold_outcome from marts.fct_dialect_gold_ranks"
            " where run_id = ? and pair_set = ? and pair_id = ? and retriever = retriever_family"
            " order by retriever, variant",
            [run_id, pair_set, pair_id],
        ).fetchall()
        outcome = {(r, v): o for r, v, o in ranks}
        for retriever in sorted({r for r, _ in outcome}):
            lines += ["", f"{retriever}:"]
            for _, variant, *_ in variants:
                lines.append(f"  {variant}: gold {outcome.get((retriever, variant), 'not retrieved')}")
                hits = con.execute(
                    "select r.rank, r.doc_id, r.score, d.document_text from staging.stg_retrieval__results r"
                    " join marts.dim_corpus_documents d on d.split = r.corpus_split and d.doc_id = r.doc_id"
                    " where r.run_id = ? and r.query_set = ? and r.retriever = ? and r.query_id = ? and r.variant = ?"
                    " and r.rank <= ? order by r.rank, r.doc_id",
                    [run_id, pair_set, retriever, pair_id, variant, k],
                ).fetchall()
                for rank, doc_id, score, text in hits:
                    mark = "*" if doc_id in golds else " "
                    score_text = "" if score is None else f"{score:9.4f}"
                    lines.append(f"   {mark}{rank:>3} doc {doc_id:<6} {score_text:>9}  {_snippet(text)}")
    return "\n".join(lines)


SEARCH_RETRIEVERS = {
    "bm25": "bm25",
    "dense": "dense",
    "hybrid": "hybrid_minmax",
    "hybrid_minmax": "hybrid_minmax",
    "hybrid_rrf": "hybrid_rrf",
    "hybrid_union": "hybrid_union",
}


def search(study_path: str, query: str, *, retriever: str = "bm25", k: int = 10, split: str | None = None) -> str:
    """Search a study's corpus by hand with one of its retrievers, using the study's settings."""
    from compute.retrieval.config import config_from_settings
    from compute.retrieval.embeddings import provider_from_settings
    from compute.retrieval.runner import Query, run_retrievers
    from compute.retrieval.steps import load_corpora
    from ingest.common.embedding_cache import EmbeddingCache

    if retriever not in SEARCH_RETRIEVERS:
        raise UserError(f"unknown retriever {retriever!r}; choose from {', '.join(SEARCH_RETRIEVERS)}")
    study = load_study(study_path, check_steps=False)
    config = config_from_settings(study.settings.get("retrieval"), resolve=study.resolve)
    config = dataclasses.replace(
        config, retrievers=(SEARCH_RETRIEVERS[retriever],), depth=k, sweep_weights=(), sweep_rrf_k=(), precomputed=()
    )
    split = split or next((s["split"] for s in study.ingest if s.get("source") == "squad" and "split" in s), "train")
    with open_warehouse(read_only=True) as con:
        corpora = load_corpora(con, {split})
        provider = cache = None
        if "dense" in config.needs:
            provider = provider_from_settings({**config.embedding})
            provider.check()
            cache = EmbeddingCache(warehouse_paths().lancedb_dir, provider.model_id)
        output = run_retrievers(
            corpora,
            [Query("search", "search", split, query)],
            config,
            provider=provider,
            cache=cache,
            lancedb_dir=warehouse_paths().lancedb_dir,
        )[0]
        hits = output.hits[0]
        if hits.reason:
            return f"no hits: {hits.reason}"
        texts = dict(
            con.execute(
                "select doc_id, document_text from marts.dim_corpus_documents where split = ?"
                " and doc_id in (select unnest(?))",
                [split, [int(d) for d in hits.doc_ids]],
            ).fetchall()
        )
    lines = [f"{output.retriever} over {study.name} ({split}, {len(corpora[split].doc_ids):,} documents): {query}"]
    for rank, (doc_id, score) in enumerate(zip(hits.doc_ids, hits.scores), start=1):
        lines.append(f"  {rank:>3} doc {int(doc_id):<6} {float(score):9.4f}  {_snippet(texts.get(int(doc_id)))}")
    return "\n".join(lines)
