-- Only the latest loaded version of each split.
with source as (
    select * from {{ source('squad', 'squad_questions') }}
),

latest_versions as (
    {{ latest_versions('squad', 'split') }}
),

final as (
    select
        source.split,
        source.row_idx,
        source.squad_id,
        source.title,
        source.context,
        source.question,
        source.answer_texts,
        source.answer_starts,
        source.source_version,
        source.run_id,
        source.source_sha256
    from source
    inner join latest_versions
        on
            source.split = latest_versions.split
            and source.source_version = latest_versions.source_version
)

select * from final
