{{
    config(
        materialized='incremental',
        incremental_strategy='delete+insert',
        unique_key='run_id',
        full_refresh=false,
        tags=['run_keyed']
    )
}}
-- depends_on: {{ ref('stg_warehouse__run_parameters') }}
-- For each relevant document of each query: found in the top evaluation_overlap_k by dense
-- only, by BM25 only, by both, or by neither.
with evaluation_runs as (
    select
        run_id,
        query_set
    from {{ ref('stg_evaluation__runs') }}
    where {{ is_new_run('run_id') }}
),

queries as (
    select
        asked.run_id,
        asked.query_set,
        asked.query_id,
        asked.variant
    from {{ ref('stg_retrieval__queries') }} as asked
    inner join evaluation_runs
        on
            asked.run_id = evaluation_runs.run_id
            and asked.query_set = evaluation_runs.query_set
),

relevant as (
    select
        queries.*,
        qrels.doc_id
    from queries
    inner join {{ ref('stg_retrieval__judgments') }} as qrels
        on
            queries.run_id = qrels.run_id
            and queries.query_set = qrels.query_set
            and queries.query_id = qrels.query_id
    where qrels.relevance > 0
),

found as (
    select
        results.run_id,
        results.query_set,
        results.query_id,
        results.variant,
        results.doc_id,
        results.retriever
    from {{ ref('stg_retrieval__results') }} as results
    where
        results.retriever in ('bm25', 'dense')
        and results.rank <= {{ run_parameter('evaluation_overlap_k', 'results.run_id', 'integer') }}
        and results.run_id in (select evaluation_runs.run_id from evaluation_runs)
),

flagged as (
    select
        relevant.*,
        bool_or(found.retriever = 'bm25') is true as found_by_bm25,
        bool_or(found.retriever = 'dense') is true as found_by_dense
    from relevant
    left join found
        on
            relevant.run_id = found.run_id
            and relevant.query_set = found.query_set
            and relevant.query_id = found.query_id
            and relevant.variant = found.variant
            and relevant.doc_id = found.doc_id
    group by all
),

final as (
    select
        run_id,
        query_set,
        query_id,
        variant,
        doc_id,
        {{ run_parameter('evaluation_overlap_k', 'flagged.run_id', 'integer') }} as k,
        case
            when found_by_bm25 and found_by_dense then 'both'
            when found_by_dense then 'dense_only'
            when found_by_bm25 then 'bm25_only'
            else 'neither'
        end as found_by
    from flagged
)

select * from final
