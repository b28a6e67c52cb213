with source as (
    select * from {{ source('warehouse', 'run_parameters') }}
),

final as (
    select
        run_id,
        name,
        value
    from source
)

select * from final
