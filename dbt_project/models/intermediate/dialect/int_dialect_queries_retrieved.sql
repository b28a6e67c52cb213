-- Every (run, retriever, pair, variant) a retrieval run answered for a pair set, with its
-- gold document and the run's depth. Sweep points (e.g. hybrid_minmax@0.3) are included.
with queries as (
    select * from {{ ref('stg_retrieval__queries') }}
),

retrieval_runs as (
    select * from {{ ref('stg_retrieval__runs') }}
),

pairs as (
    select * from {{ ref('fct_pair_gold_documents') }}
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
        pairs.gold_doc_id,
    from queries
    inner join retrieval_runs
        on queries.run_id = retrieval_runs.run_id
        and queries.query_set = retrieval_runs.query_set
    inner join pairs
        on queries.query_set = pairs.pair_set
        and queries.query_id = pairs.pair_id
    where pairs.mapping_status = 'mapped'
)

select * from final
