{{ config(**run_keyed_config()) }}
-- depends_on: {{ ref('stg_warehouse__run_parameters') }}
-- For each relevant document of each query: found in the top evaluation_overlap_k by dense
-- only, by BM25 only, by both, or by neither.
-- The runs being built and the ranks of their relevant documents (macro evaluation_scope).
with {{ evaluation_scope() }},

flagged as (
    select
        run_id,
        query_set,
        query_id,
        variant,
        doc_id,
        bool_or(
            retriever = 'bm25'
            and rank_of_document <= {{ run_parameter('evaluation_overlap_k', 'ranks.run_id', 'integer') }}
        ) is true as found_by_bm25,
        bool_or(
            retriever = 'dense'
            and rank_of_document <= {{ run_parameter('evaluation_overlap_k', 'ranks.run_id', 'integer') }}
        ) is true as found_by_dense
    from ranks
    group by run_id, query_set, query_id, variant, doc_id
),

final as (
    select
        run_id,
        query_set,
        query_id,
        variant,
        doc_id,
        {{ run_parameter('evaluation_overlap_k', 'flagged.run_id', 'integer') }} as k,
        case
            when found_by_bm25 and found_by_dense then 'both'
            when found_by_dense then 'dense_only'
            when found_by_bm25 then 'bm25_only'
            else 'neither'
        end as found_by
    from flagged
)

select * from final
