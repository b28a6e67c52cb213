"""``biaswh search``: search a study's corpus by hand.

It rebuilds the study's retrievers over its corpus with the study's own ``[retrieval]``
settings (and the embedding cache, so known texts are not embedded again); it only reads the
warehouse.
"""

from __future__ import annotations

import dataclasses

from biaswh.arguments import number
from biaswh.cli_help import READS
from biaswh.command_registry import register_command
from biaswh.common.snippets import snippet
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.settings.config_schema import CUTOFF

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
    from biaswh.compute.retrieval.embeddings import provider_from_settings
    from biaswh.compute.retrieval.runner import Query, run_retrievers
    from biaswh.compute.retrieval.steps import load_corpora, study_retrieval_config
    from biaswh.ingest.common.embedding_cache import EmbeddingCache
    from biaswh.warehouse.database.connection import open_warehouse
    from biaswh.warehouse.runs.study import load_study
    from biaswh.warehouse.settings.home import warehouse_paths

    if retriever not in SEARCH_RETRIEVERS:
        raise UserError(f"unknown retriever {retriever!r}; choose from {', '.join(SEARCH_RETRIEVERS)}")
    study = load_study(study_path, check_steps=False)
    config = study_retrieval_config(study)  # its ANN index seeded as the study's retrieval runs seed it
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
        lines.append(f"  {rank:>3} doc {int(doc_id):<6} {float(score):9.4f}  {snippet(texts.get(int(doc_id)))}")
    return "\n".join(lines)


def _arguments(search_parser) -> None:
    search_parser.add_argument("query", help="the query text")
    search_parser.add_argument("--study", required=True, help="study config (TOML) whose corpus and settings to use")
    search_parser.add_argument("--retriever", default="bm25", help="bm25, dense or hybrid (default bm25)")
    search_parser.add_argument("-k", type=number(CUTOFF), default=10, help="hits to show (default 10)")


@register_command(
    "search",
    summary="search a study's corpus by hand",
    arguments=_arguments,
    order=120,
    explained={
        "search": (
            "Search a study's corpus by hand with its retriever settings.",
            'biaswh search "how do I reset my password" --study studies/demo_external_runs.toml -k 5',
            READS,
        )
    },
)
def run_search(args) -> None:
    """``biaswh search``: print the hits of :func:`search`."""
    print(search(args.study, args.query, retriever=args.retriever, k=args.k))
