"""Study job ``retrieval``: run the configured retrievers over the marts' corpus and queries.

Reads ``marts.dim_corpus_documents`` and the query sets (``marts.fct_query_variants`` for
pairs, ``marts.fct_squad_questions`` for SQuAD questions), runs BM25, dense and hybrid
retrieval (``compute/retrieval/``), and writes ``raw.retrieval_*`` in one transaction; BM25-only
configurations are retrieved and written chunk by chunk (:data:`QUERY_CHUNK` queries at a time),
so their memory does not grow with the query set.
Everything that can be wrong with the configuration (unknown model, missing API key,
missing embeddings file, empty corpus) is reported before any retrieval starts.
"""

from __future__ import annotations

import json
import tempfile
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from compute.retrieval.config import RetrievalConfig, config_from_settings
from compute.retrieval.embeddings import provider_from_settings
from compute.retrieval.runner import Corpus, Query, run_retrievers
from compute.retrieval.vector_store import EmbeddingCache, text_sha256
from compute.retrieval.writer import ResultSpool, write_query_rows, write_relevant_documents, write_retriever_runs
from warehouse.errors import UserError
from warehouse.run_parameters import pinned_inputs, pinned_version
from warehouse.seeds import derive_seed
from warehouse.settings import warehouse_paths
from warehouse.study import register_job

# Queries retrieved and written at a time: their hits (x retrievers x depth) are all that is
# held in memory, about 1 M result rows per retriever at depth 100.
QUERY_CHUNK = 10_000


def _pair_queries(con, names: list[str], limit: int | None) -> dict[str, list[Query]]:
    rows = con.execute(
        """
        with pairs as (
            select *, dense_rank() over (partition by pair_set order by source_row) as pair_number
            from marts.fct_pair_gold_documents
        )
        select v.pair_set, v.pair_id, v.variant, v.corpus_split, v.query_text, v.gold_doc_id
        from marts.fct_query_variants v
        inner join pairs p on v.pair_set = p.pair_set and v.pair_id = p.pair_id
        where list_contains(?, v.pair_set) and (? is null or p.pair_number <= ?)
        order by v.pair_set, p.source_row, v.variant
        """,
        [names, limit, limit],
    ).fetchall()
    sets: dict[str, list[Query]] = {name: [] for name in names}
    for pair_set, pair_id, variant, split, text, gold in rows:
        sets[pair_set].append(Query(pair_id, variant, split, text, gold))
    empty = [name for name, queries in sets.items() if not queries]
    if empty:
        raise UserError(f"[retrieval] query set 'pairs:{empty[0]}': no such pair set in marts.fct_query_variants")
    return sets


def _squad_queries(con, split: str, limit: int | None) -> dict[str, list[Query]]:
    rows = con.execute(
        "select row_idx, question, doc_id from marts.fct_squad_questions where split = ? order by row_idx"
        + (" limit ?" if limit is not None else ""),
        [split] + ([limit] if limit is not None else []),
    ).fetchall()
    if not rows:
        raise UserError(
            f"[retrieval] query set 'squad_questions:{split}': no questions for the SQuAD dataset "
            f'{split!r}; ingest it (source = "squad", name = "{split}") first'
        )
    return {f"squad_questions_{split}": [Query(str(i), "question", split, q, d) for i, q, d in rows]}


def corpus_query_rows(con, name: str) -> list[tuple]:
    """(query_id, query_text, corpus) of corpus query set ``name`` in source order; refused when unknown."""
    rows = con.execute(
        "select query_id, query_text, corpus from marts.fct_corpus_queries where query_set = ? order by source_row",
        [name],
    ).fetchall()
    if not rows:
        raise UserError(
            f"query set 'queries:{name}': no such corpus query set in marts.fct_corpus_queries; ingest it"
            f' (source = "corpus_queries", name = "{name}") first'
        )
    return rows


def _corpus_queries(con, name: str, limit: int | None) -> dict[str, list[Query]]:
    rows = corpus_query_rows(con, name)[:limit] if limit is not None else corpus_query_rows(con, name)
    return {f"queries_{name}": [Query(q, "question", corpus, text, None) for q, text, corpus in rows]}


def load_query_sets(
    con, config: RetrievalConfig, limit: int | None, *, run_id: str | None = None
) -> tuple[dict[str, list[Query]], dict[str, str]]:
    """Every configured query set (first ``limit`` pairs/questions only when set) and each set's kind.

    ``pairs`` means the pair sets the study run ingested (its pinned inputs), never every
    pair set in the warehouse; ``pairs:<name>`` names one.
    """
    sets: dict[str, list[Query]] = {}
    kinds: dict[str, str] = {}
    for name in config.query_sets:
        if name == "pairs" or name.startswith("pairs:"):
            if name == "pairs":
                names = sorted(pinned_inputs(con, run_id, "query_pairs")) if run_id else []
                if not names:
                    raise UserError(
                        "[retrieval] query set 'pairs' means the pair sets this study ingests, and it "
                        "ingests none: add a source = \"pairs\" [[ingest]] step or name 'pairs:<name>'"
                    )
            else:
                names = [name.split(":", 1)[1]]
            found = _pair_queries(con, names, limit)
            kinds.update({n: "pairs" for n in found})
        elif name.startswith("queries:"):
            found = _corpus_queries(con, name.split(":", 1)[1], limit)
            kinds.update({n: "questions" for n in found})
        else:
            found = _squad_queries(con, name.split(":", 1)[1], limit)
            kinds.update({n: "questions" for n in found})
        sets.update(found)
    if not any(sets.values()):
        raise UserError("[retrieval] no queries to run: ingest a pair set or name a query set")
    return sets, kinds


def pin_read_versions(
    con, run_id: str, *, pair_sets: list[str], corpus_splits: set[str], query_sets: tuple[str, ...] = ()
) -> None:
    """Check the marts hold the versions the run pinned, and pin the inputs it read but did not ingest.

    A mismatch means the marts were not rebuilt after an ingest; reading them would mix versions.
    ``query_sets``: the stored names of the query sets read (``queries_<name>`` are corpus query sets).
    """
    wanted = [
        ("query_pairs", name, "select distinct source_version from marts.fct_query_variants where pair_set = ?")
        for name in pair_sets
    ]
    wanted += [
        (
            "corpus_queries",
            name.removeprefix("queries_"),
            "select distinct source_version from marts.fct_corpus_queries where query_set = ?",
        )
        for name in query_sets
        if name.startswith("queries_")
    ]
    sources = dict(
        con.execute(
            "select split, any_value(corpus_source) from marts.dim_corpus_documents where list_contains(?, split)"
            " group by split",
            [sorted(corpus_splits)],
        ).fetchall()
    )
    wanted += [
        (
            "squad" if sources.get(split, "squad") == "squad" else "corpus",
            split,
            "select distinct source_version from marts.dim_corpus_documents where split = ?",
        )
        for split in sorted(corpus_splits)
    ]
    for dataset, name, query in wanted:
        in_marts = [r[0] for r in con.execute(query, [name]).fetchall()]
        pinned = pinned_version(con, run_id, dataset, name)
        if len(in_marts) != 1 or (pinned is not None and in_marts[0] != pinned):
            raise UserError(
                f"the marts hold version(s) {in_marts} of {dataset} {name!r} but this run read version "
                f"{pinned}: run `biaswh build` and try again"
            )
        if pinned is None:
            con.execute("insert into raw.run_inputs values (?, ?, ?, ?)", [run_id, dataset, name, in_marts[0]])


def load_corpora(con, splits: set[str]) -> dict[str, Corpus]:
    """The corpus of each split; a split without documents is refused."""
    corpora = {}
    for split in sorted(splits):
        rows = con.execute(
            "select doc_id, document_text from marts.dim_corpus_documents where split = ? order by doc_id", [split]
        ).fetchall()
        if not rows:
            raise UserError(
                f"the corpus {split!r} has no documents (marts.dim_corpus_documents): "
                "ingest that SQuAD dataset or corpus and build before retrieving"
            )
        corpora[split] = Corpus([r[0] for r in rows], [r[1] for r in rows])
    return corpora


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
) -> tuple[int, list, dict[str, int]]:
    """Retrieve and write one query set chunk by chunk, so only one chunk's hits are held in memory.

    The result rows of all chunks are inserted at the end with one statement from a Parquet
    spool in the warehouse folder (see :class:`ResultSpool`). Returns the result rows
    written, each retriever's output (hits dropped; wall time summed
    over the chunks; settings and index timings of the first chunk) and, per retriever, how
    many queries got a hit. Only BM25 is chunked: its scores do not depend on which other
    queries share a batch, while dense scores (a float32 matrix product) can differ in the
    last bits with the batch's shape, and an ANN index is built per search.
    """
    size = QUERY_CHUNK if "dense" not in config.needs else max(1, len(queries))
    written, totals, answered = 0, {}, {}
    home = warehouse_paths().home
    with tempfile.TemporaryDirectory(dir=home, prefix="retrieval-spool-") as folder:
        spool = ResultSpool(Path(folder))
        for first in range(0, len(queries), size):
            chunk = queries[first : first + size]
            outputs = run_retrievers(
                corpora,
                chunk,
                config,
                provider=provider,
                cache=cache,
                lancedb_dir=warehouse_paths().lancedb_dir,
                bm25_indexes=bm25_indexes,
            )
            written += write_query_rows(
                con,
                run_id=run_id,
                query_set=query_set,
                queries=chunk,
                outputs=outputs,
                config=config,
                query_set_kind=query_set_kind,
                results_spool=spool,
            )
            _add_up(outputs, totals, answered)
        spool.insert(con)
    return written, list(totals.values()), answered


def _add_up(outputs: list, totals: dict, answered: dict) -> None:
    """Add one chunk's outputs to the query set's totals (hits are dropped once counted)."""
    for output in outputs:
        answered[output.retriever] = answered.get(output.retriever, 0) + sum(len(h.doc_ids) > 0 for h in output.hits)
        output.hits, output.latency_ms = [], []
        if output.retriever in totals:
            totals[output.retriever].seconds += output.seconds
        else:
            totals[output.retriever] = output


def prepare_dense(con, config: RetrievalConfig, run_id: str, corpora: dict, query_sets: dict):
    """Check the provider, import precomputed vectors, and preflight only if texts must be embedded."""
    provider = provider_from_settings({**config.embedding})
    provider.check()
    for path in config.precomputed:
        if not Path(path).is_file():
            raise UserError(f"{path}: no such embeddings file ([retrieval.embedding] precomputed)")
    cache = EmbeddingCache(warehouse_paths().lancedb_dir, provider.model_id)
    for path in config.precomputed:
        result = cache.import_parquet(path)
        con.execute(
            "insert into raw.run_sources values (?, ?, ?, ?)",
            [run_id, result.path, result.source_sha256, Path(path).stat().st_size],
        )
        print(f"  embeddings {Path(path).name}: {result.n_rows:,} vectors, {result.n_new:,} new in the cache")
    texts = {t for c in corpora.values() for t in c.texts}
    texts |= {q.text for queries in query_sets.values() for q in queries if q.text.strip()}
    cached = set(cache.known().column("text_sha256").to_pylist())
    missing = sum(text_sha256(t) not in cached for t in texts)
    if missing:
        print(f"  {missing:,} text(s) to embed with {provider.model_id}")
        provider.preflight()
    return provider, cache


@register_job(
    "retrieval",
    before="+fct_query_variants +fct_squad_questions +dim_corpus_documents +fct_corpus_queries",
    after="path:models/staging/retrieval path:models/staging/warehouse path:models/intermediate/retrieval"
    " path:models/intermediate/dialect fct_retrieval_relevant_ranks path:models/marts/dialect",
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
    con.begin()
    try:
        pin_read_versions(
            con,
            run_id,
            pair_sets=[n for n, k in kinds.items() if k == "pairs"],
            corpus_splits=splits,
            query_sets=tuple(query_sets),
        )
        provider = cache = None
        if "dense" in config.needs:
            provider, cache = prepare_dense(con, config, run_id, corpora, query_sets)
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
        con.commit()
    except BaseException:
        con.rollback()
        raise
