{{
    config(
        materialized='incremental',
        incremental_strategy='delete+insert',
        unique_key='run_id',
        full_refresh=false,
        tags=['run_keyed']
    )
}}
-- Where the gold document landed for each query; a miss is explicit, never a silent null.
with queries as (
    select * from {{ ref('int_dialect_queries_retrieved') }}
    where {{ is_new_run('run_id') }}
),

results as (
    select * from {{ ref('stg_retrieval__results') }}
    where {{ is_new_run('run_id') }}
),

gold_hits as (
    select
        results.run_id,
        results.query_set,
        results.retriever,
        results.query_id,
        results.variant,
        min(results.rank) as rank_of_gold,
        max(results.score) as score_of_gold
    from results
    inner join queries
        on
            results.run_id = queries.run_id
            and results.query_set = queries.pair_set
            and results.retriever = queries.retriever
            and results.query_id = queries.pair_id
            and results.variant = queries.variant
            and results.doc_id = queries.gold_doc_id
    group by all
),

final as (
    select
        queries.run_id,
        queries.retriever,
        queries.retriever_family,
        queries.pair_set,
        queries.pair_id,
        queries.variant,
        queries.query_text,
        queries.corpus_split,
        queries.gold_doc_id,
        queries.depth,
        gold_hits.rank_of_gold,
        gold_hits.score_of_gold,
        gold_hits.rank_of_gold is not null as is_found_within_depth,
        coalesce(gold_hits.rank_of_gold, queries.depth + 1) as rank_or_depth_plus_one,
        coalesce(1.0 / gold_hits.rank_of_gold, 0.0) as reciprocal_rank,
        case
            when gold_hits.rank_of_gold is null then 'not found within depth ' || queries.depth
            else 'rank ' || gold_hits.rank_of_gold
        end as gold_outcome
    from queries
    left join gold_hits
        on
            queries.run_id = gold_hits.run_id
            and queries.pair_set = gold_hits.query_set
            and queries.retriever = gold_hits.retriever
            and queries.pair_id = gold_hits.query_id
            and queries.variant = gold_hits.variant
)

select * from final
