with source as (
    select * from {{ source('retrieval', 'retrieval_relevant_documents') }}
),

final as (
    select
        run_id,
        corpus_split,
        doc_id,
        document_text
    from source
)

select * from final
