with source as (
    select * from {{ source('retrieval', 'retrieval_runs') }}
),

final as (
    select
        run_id,
        query_set,
        retriever,
        retriever_family,
        corpus_splits,
        depth,
        n_queries,
        n_queries_with_hits,
        fusion_weight_bm25,
        fusion_weight_dense,
        rrf_k,
        ann_index,
        ann_recall,
        seconds as retriever_seconds,
        configuration,
        created_at
    from source
)

select * from final
