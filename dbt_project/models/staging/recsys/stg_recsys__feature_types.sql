-- Only the feature table loaded with the latest version of each post set.
with source as (
    select * from {{ source('recsys', 'recsys_feature_types') }}
),

latest_versions as (
    {{ latest_versions('recsys_posts', 'post_set') }}
),

final as (
    select
        source.post_set,
        source.source_version,
        source.feature,
        source.feature_type,
        source.run_id,
        source.source_sha256
    from source
    inner join latest_versions
        on
            source.post_set = latest_versions.post_set
            and source.source_version = latest_versions.source_version
)

select * from final
