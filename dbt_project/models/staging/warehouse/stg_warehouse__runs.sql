with source as (
    select * from {{ source('warehouse', 'runs') }}
),

final as (
    select
        run_id,
        kind as run_kind,
        name as run_name,
        status as run_status,
        parameters,
        code_version,
        package_versions,
        started_at,
        finished_at,
        {{ seconds_between('started_at', 'finished_at') }} as duration_seconds,
        row_counts,
        message,
        stage_seconds
    from source
)

select * from final
