{{ config(**run_keyed_config()) }}
-- The latency of each query of an evaluation run, per retriever: what the latency alert's paired
-- test compares (agg_evaluation_latency holds the percentiles). Batch-timed runs record the batch
-- time divided by the number of queries (stg_retrieval__query_stats.timing); a run written
-- elsewhere has no latencies, so no rows.
-- The runs being built and their query latencies (macro evaluation_scope).
with {{ evaluation_scope(rows='stg_retrieval__query_stats', name='stats') }},

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
    where stats.latency_ms is not null
)

select * from final
