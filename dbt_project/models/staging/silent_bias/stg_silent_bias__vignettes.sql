-- Only the latest loaded version of each vignette set.
with source as (
    select * from {{ source('silent_bias', 'silent_bias_vignettes') }}
),

latest_versions as (
    {{ latest_versions('silent_bias_vignettes', 'vignette_set') }}
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
        source.source_sha256
    from source
    inner join latest_versions
        on
            source.vignette_set = latest_versions.vignette_set
            and source.source_version = latest_versions.source_version
)

select * from final
