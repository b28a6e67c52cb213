{{ config(**run_keyed_config()) }}
-- The latency of each query of an evaluation run, per retriever: what the latency alert's paired
-- test compares (agg_retrieval_latency holds the percentiles). Batch-timed runs record the batch
-- time divided by the number of queries (stg_retrieval__query_stats.timing); a run written
-- elsewhere has no latencies, so no rows.
with evaluation_runs as (
    select
        run_id,
        query_set
    from {{ ref('stg_evaluation__runs') }}
    where {{ is_new_run('run_id') }}
),

stats as (
    select * from {{ ref('stg_retrieval__query_stats') }}
),

final as (
    select
        stats.run_id,
        stats.query_set,
        stats.retriever,
        stats.query_id,
        stats.variant,
        stats.timing,
        stats.latency_ms
    from stats
    inner join evaluation_runs
        on
            stats.run_id = evaluation_runs.run_id
            and stats.query_set = evaluation_runs.query_set
    where stats.latency_ms is not null
)

select * from final
