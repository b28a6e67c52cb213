with source as (
    select * from {{ source('retrieval', 'retrieval_query_stats') }}
),

final as (
    select
        run_id,
        query_set,
        retriever,
        query_id,
        variant,
        corpus_split,
        n_hits,
        latency_ms,
        timing,
        reason as no_hits_reason
    from source
)

select * from final
