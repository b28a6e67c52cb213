-- For hybrid_union, rank is the depth at which a document joins the union of the two
-- top-k lists (ranks can repeat) and score is null.
with source as (
    select * from {{ source('retrieval', 'retrieval_results') }}
),

final as (
    select
        run_id,
        query_set,
        retriever,
        query_id,
        variant,
        corpus_split,
        rank,
        doc_id,
        score
    from source
)

select * from final
