with source as (
    select * from {{ source('evaluation', 'evaluation_runs') }}
),

final as (
    select
        run_id,
        series_run_id,
        series_name,
        label,
        position,
        is_baseline,
        query_set,
        n_queries,
        configuration,
        created_at
    from source
)

select * from final
