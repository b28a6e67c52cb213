with source as (
    select * from {{ source('retrieval', 'retrieval_judgments') }}
),

final as (
    select
        run_id,
        query_set,
        query_id,
        doc_id,
        relevance,
        qrels_source
    from source
)

select * from final
