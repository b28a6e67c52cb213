with source as (
    select * from {{ source('evaluation', 'evaluation_live_queries') }}
),

final as (
    select
        run_id,
        query_set,
        query_id,
        variant,
        status,
        n_hits,
        latency_ms,
        attempts,
        failure_reason,
        system_version
    from source
)

select * from final
