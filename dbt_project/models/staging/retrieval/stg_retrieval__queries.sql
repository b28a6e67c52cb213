with source as (
    select * from {{ source('retrieval', 'retrieval_queries') }}
),

final as (
    select
        run_id,
        query_set,
        query_id,
        variant,
        corpus_split,
        query_text,
        text_sha256,
        relevant_doc_id,
        query_set_kind
    from source
)

select * from final
