with source as (
    select * from {{ source('warehouse', 'run_sources') }}
),

final as (
    select
        run_id,
        source_path,
        source_sha256,
        size_bytes
    from source
)

select * from final
