-- Only the latest loaded version of each embedding.
with source as (
    select * from {{ source('weat', 'weat_embeddings') }}
),

latest_versions as (
    {{ latest_versions('weat_embeddings', 'embedding') }}
),

final as (
    select
        source.embedding,
        source.source_version,
        source.format,
        source.source_path,
        source.lancedb_table,
        source.n_words,
        source.dim,
        source.n_duplicate_words,
        source.options,
        source.run_id,
        source.source_sha256
    from source
    inner join latest_versions
        on
            source.embedding = latest_versions.embedding
            and source.source_version = latest_versions.source_version
)

select * from final
