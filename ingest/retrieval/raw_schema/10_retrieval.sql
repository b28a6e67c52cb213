-- Retrieval runs (compute/retrieval/steps.py): what each retriever returned for each query.
-- A run is a study run (run_id from raw.runs); its full retrieval configuration is in
-- raw.retrieval_runs.configuration and in raw.runs.parameters.

-- One row per (run, query set, retriever): the resolved configuration and what it cost.
create table if not exists raw.retrieval_runs (
    run_id varchar not null,
    query_set varchar not null,          -- a pair set name, or squad_questions_<split>
    retriever varchar not null,          -- bm25, dense, hybrid_union, hybrid_minmax, hybrid_rrf, or a sweep point e.g. hybrid_minmax@0.3 or bm25@k1=1.2,b=0.75
    retriever_family varchar not null,   -- the retriever without its sweep point
    corpus_splits varchar[] not null,
    depth integer not null,
    n_queries integer not null,
    n_queries_with_hits integer not null,
    fusion_weight_bm25 double,           -- min-max fusion only
    fusion_weight_dense double,
    rrf_k double,                        -- reciprocal rank fusion only
    ann_index varchar,                   -- dense only: none (exact), ivf_flat, ivf_hnsw_sq, ivf_pq
    ann_recall double,                   -- recall@depth of the ANN index against exact search
    seconds double not null,             -- wall time over the whole query set (hybrids: both retrievers + fusion)
    configuration json not null,
    created_at timestamp not null
);

-- The queries a run asked, with the relevant document where the query set has one.
create table if not exists raw.retrieval_queries (
    run_id varchar not null,
    query_set varchar not null,
    query_id varchar not null,           -- pair_id for pairs, row_idx for SQuAD questions
    variant varchar not null,            -- e.g. sae, aae; 'question' for SQuAD questions
    corpus_split varchar not null,
    query_text varchar not null,
    text_sha256 varchar not null,
    relevant_doc_id integer,             -- gold document; null when unknown
    query_set_kind varchar not null      -- pairs (a dialect/variant pair set) or questions
);

-- The text of every document a run's queries named as relevant (gold), as the run saw it:
-- error examples quote it without reading a corpus that a later ingest may have replaced.
create table if not exists raw.retrieval_relevant_documents (
    run_id varchar not null,
    corpus_split varchar not null,
    doc_id integer not null,
    document_text varchar not null
);

-- One row per (run, query set, retriever, query, variant, rank) down to the run's depth.
-- For hybrid_union, rank is the smallest k at which the document is in the union of the
-- two top-k lists (two documents may share a rank) and score is null.
create table if not exists raw.retrieval_results (
    run_id varchar not null,
    query_set varchar not null,
    retriever varchar not null,
    query_id varchar not null,
    variant varchar not null,
    corpus_split varchar not null,
    rank integer not null,               -- from 1
    doc_id integer not null,
    score double
);

-- One row per (run, query set, retriever, query, variant): hits, latency, and why there are none.
create table if not exists raw.retrieval_query_stats (
    run_id varchar not null,
    query_set varchar not null,
    retriever varchar not null,
    query_id varchar not null,
    variant varchar not null,
    corpus_split varchar not null,
    n_hits integer not null,
    latency_ms double,                   -- see timing
    timing varchar not null,             -- batch_amortised (batch time / queries) or per_query
    reason varchar                       -- e.g. 'empty query'; null when there are hits
);

-- The relevance judgments a run was evaluated with, as the evaluation job once copied them from
-- marts.fct_evaluation_qrels; kept for the runs that hold them. A run now pins its judgments in
-- dbt when it is first built (int_evaluation_judgments_pinned), so nothing writes here any more.
create table if not exists raw.retrieval_judgments (
    run_id varchar not null,
    query_set varchar not null,
    query_id varchar not null,
    doc_id integer not null,
    relevance integer not null,
    qrels_source varchar not null       -- file:<qrels name> or squad_context
);
