{{ config(**run_keyed_config()) }}
-- Latency percentiles per (run, retriever) over the run's queries, from the per-query latencies
-- (fct_retrieval_query_latency: batch-timed runs record the batch time divided by the number
-- of queries). A run written elsewhere (retriever family external) has no latencies: no row.
with latencies as (
    select * from {{ ref('fct_retrieval_query_latency') }}
    where {{ is_new_run('run_id') }}
),

final as (
    select
        run_id,
        query_set,
        retriever,
        any_value(timing) as timing,
        count(latency_ms) as n_queries,
        quantile_cont(latency_ms, 0.5) as latency_p50_ms,
        quantile_cont(latency_ms, 0.95) as latency_p95_ms,
        avg(latency_ms) as latency_mean_ms
    from latencies
    group by run_id, query_set, retriever
)

select * from final
