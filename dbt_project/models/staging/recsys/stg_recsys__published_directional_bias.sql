-- Every loaded version: study runs read the version they pinned (raw.run_inputs).
with source as (
    select * from {{ source('recsys', 'recsys_published_directional_bias') }}
),

final as (
    select
        result_set,
        source_version,
        source_row,
        feature,
        category,
        feature_type,
        dataset,
        provider,
        prompt_style,
        directional_bias,
        prop_pool,
        prop_recommended,
        mean_pool,
        mean_recommended,
        std_diff,
        run_id as ingest_run_id,
        source_sha256
    from source
)

select * from final
