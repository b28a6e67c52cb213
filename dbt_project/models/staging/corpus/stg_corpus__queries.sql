-- Only the latest loaded version of each corpus query set.
with source as (
    select * from {{ source('corpus', 'corpus_queries') }}
),

latest_versions as (
    {{ latest_versions('corpus_queries', 'query_set') }}
),

final as (
    select
        source.query_set,
        source.corpus,
        source.query_id,
        source.query_text,
        source.source_row,
        source.source_version,
        source.run_id,
        source.source_sha256
    from source
    inner join latest_versions
        on
            source.query_set = latest_versions.query_set
            and source.source_version = latest_versions.source_version
)

select * from final
