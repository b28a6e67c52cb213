-- Only the latest loaded version of each post set.
with source as (
    select * from {{ source('recsys', 'recsys_post_values') }}
),

latest_versions as (
    {{ latest_versions('recsys_posts', 'post_set') }}
),

final as (
    select
        source.post_set,
        source.source_version,
        source.source_row,
        source.item_id,
        source.dataset,
        source.provider,
        source.prompt_style,
        source.trial,
        source.selected,
        source.feature,
        source.value_text,
        source.value_number,
        source.run_id,
        source.source_sha256
    from source
    inner join latest_versions
        on
            source.post_set = latest_versions.post_set
            and source.source_version = latest_versions.source_version
)

select * from final
