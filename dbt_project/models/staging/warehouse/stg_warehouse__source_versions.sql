with source as (
    select * from {{ source('warehouse', 'source_versions') }}
),

final as (
    select
        dataset,
        source_name,
        version as source_version,
        source_sha256,
        source_path,
        run_id,
        n_rows,
        loaded_at
    from source
)

select * from final
