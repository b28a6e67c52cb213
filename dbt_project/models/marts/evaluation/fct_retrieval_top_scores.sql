{{ config(**run_keyed_config()) }}
-- The top (rank 1) score of each query for the scored base retrievers: a falling mean top
-- score is an early sign of drift (an index or embedding change) even before recall moves.
with evaluation_runs as (
    select
        run_id,
        query_set
    from {{ ref('stg_evaluation__runs') }}
    where {{ is_new_run('run_id') }}
),

results as (
    select * from {{ ref('stg_retrieval__results') }}
),

final as (
    select
        results.run_id,
        results.query_set,
        results.retriever,
        results.query_id,
        results.variant,
        results.score as top_score
    from results
    inner join evaluation_runs
        on
            results.run_id = evaluation_runs.run_id
            and results.query_set = evaluation_runs.query_set
    where
        results.rank = 1
        and results.retriever in ('bm25', 'dense')
)

select * from final
