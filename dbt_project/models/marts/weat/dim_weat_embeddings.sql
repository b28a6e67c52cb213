-- The embeddings a WEAT study can use: the latest version of each, with where its vectors are.
with embeddings as (
    select * from {{ ref('stg_weat__embeddings') }}
),

final as (
    select
        embedding,
        source_version,
        format,
        source_path,
        source_sha256,
        lancedb_table,
        n_words,
        dim,
        n_duplicate_words,
        options,
        run_id
    from embeddings
)

select * from final
