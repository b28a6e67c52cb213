with source as (
    select * from {{ source('warehouse', 'run_inputs') }}
),

final as (
    select
        run_id,
        dataset,
        source_name,
        version as source_version
    from source
)

select * from final
