{{ config(**run_keyed_config()) }}
-- Latency percentiles per (run, retriever) over the run's queries (batch-timed runs record
-- the batch time divided by the number of queries; see stg_retrieval__query_stats.timing).
-- The runs being built and their query latencies (macro evaluation_scope).
with {{ evaluation_scope(rows='stg_retrieval__query_stats', name='stats') }},

final as (
    select
        stats.run_id,
        stats.query_set,
        stats.retriever,
        {{ any_non_null('stats.timing') }} as timing,
        count(stats.latency_ms) as n_queries,
        {{ continuous_quantile('stats.latency_ms', 0.5) }} as latency_p50_ms,
        {{ continuous_quantile('stats.latency_ms', 0.95) }} as latency_p95_ms,
        avg(stats.latency_ms) as latency_mean_ms
    from stats
    group by stats.run_id, stats.query_set, stats.retriever
    -- a run written elsewhere (retriever family external) has no latencies: no row
    having count(stats.latency_ms) > 0
)

select * from final
