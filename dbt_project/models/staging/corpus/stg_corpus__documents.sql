-- Only the latest loaded version of each corpus.
with source as (
    select * from {{ source('corpus', 'corpus_documents') }}
),

latest_versions as (
    {{ latest_versions('corpus', 'corpus') }}
),

final as (
    select
        source.corpus,
        source.doc_id,
        source.source_doc_id,
        source.title,
        source.document_text,
        source.source_file,
        source.source_row,
        source.source_version,
        source.run_id,
        source.source_sha256
    from source
    inner join latest_versions
        on
            source.corpus = latest_versions.corpus
            and source.source_version = latest_versions.source_version
)

select * from final
