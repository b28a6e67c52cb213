-- Only the latest loaded version of each qrels file (by its name).
with source as (
    select * from {{ source('evaluation', 'evaluation_qrels') }}
),

latest_versions as (
    {{ latest_versions('qrels', 'qrels_name') }}
),

final as (
    select
        source.qrels_name,
        source.query_set,
        source.query_id,
        source.doc_id,
        source.relevance,
        source.source_row,
        source.source_version,
        source.run_id,
        source.source_sha256
    from source
    inner join latest_versions
        on
            source.qrels_name = latest_versions.qrels_name
            and source.source_version = latest_versions.source_version
)

select * from final
