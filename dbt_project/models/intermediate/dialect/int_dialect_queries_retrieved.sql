-- Every (run, retriever, pair, variant) a retrieval run answered for a pair set, with the gold
-- document the run recorded for it (raw.retrieval_queries.relevant_doc_id) and the run's depth.
-- Pairs without a gold document (unmapped) are left out. Sweep points are included.
with queries as (
    select * from {{ ref('stg_retrieval__queries') }}
    where
        query_set_kind = 'pairs'
        and relevant_doc_id is not null
),

retrieval_runs as (
    select * from {{ ref('stg_retrieval__runs') }}
),

final as (
    select
        queries.run_id,
        retrieval_runs.retriever,
        retrieval_runs.retriever_family,
        retrieval_runs.depth,
        queries.query_set as pair_set,
        queries.query_id as pair_id,
        queries.variant,
        queries.corpus_split,
        queries.query_text,
        queries.relevant_doc_id as gold_doc_id
    from queries
    inner join retrieval_runs
        on
            queries.run_id = retrieval_runs.run_id
            and queries.query_set = retrieval_runs.query_set
)

select * from final
