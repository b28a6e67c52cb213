-- Only the latest loaded version of each published result set.
with source as (
    select * from {{ source('recsys', 'recsys_published_results') }}
),

latest_versions as (
    {{ latest_versions('recsys_summary', 'result_set') }}
),

final as (
    select
        source.result_set,
        source.source_version,
        source.source_row,
        source.feature,
        source.dataset,
        source.provider,
        source.prompt_style,
        source.bias,
        source.p_value,
        source.metric,
        source.significant,
        source.run_id,
        source.source_sha256
    from source
    inner join latest_versions
        on
            source.result_set = latest_versions.result_set
            and source.source_version = latest_versions.source_version
)

select * from final
