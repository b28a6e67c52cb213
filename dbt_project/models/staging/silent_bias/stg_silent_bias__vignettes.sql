-- Only the latest loaded version of each vignette set.
with source as (
    select * from {{ source('silent_bias', 'silent_bias_vignettes') }}
),

latest_versions as (
    select
        source_name as vignette_set,
        max(version) as source_version,
    from {{ source('warehouse', 'source_versions') }}
    where dataset = 'silent_bias_vignettes'
    group by source_name
),

final as (
    select
        source.vignette_set,
        source.case_id,
        source.source_row,
        source.prompt,
        lower(source.bias_feature) as bias_feature,
        source.bias_label,
        lower(source.dimension) as dimension,
        source.metadata,
        source.source_version,
        source.run_id,
        source.source_sha256,
    from source
    inner join latest_versions
        on source.vignette_set = latest_versions.vignette_set
        and source.source_version = latest_versions.source_version
)

select * from final
