with source as (
    select * from {{ source('evaluation', 'evaluation_thresholds') }}
),

final as (
    select
        series_run_id,
        metric,
        k,
        retriever,
        direction,
        threshold,
        severity,
        description,
        max_achievable
    from source
)

select * from final
