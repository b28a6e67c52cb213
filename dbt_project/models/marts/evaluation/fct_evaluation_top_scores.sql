{{ config(**run_keyed_config()) }}
-- The top (rank 1) score of each query for the scored base retrievers: a falling mean top
-- score is an early sign of drift (an index or embedding change) even before recall moves.
-- The runs being built and their results (macro evaluation_scope).
with {{ evaluation_scope(rows='stg_retrieval__results', name='results') }},

final as (
    select
        results.run_id,
        results.query_set,
        results.retriever,
        results.query_id,
        results.variant,
        results.score as top_score
    from results
    where
        results.rank = 1
        and results.retriever in ('bm25', 'dense')
)

select * from final
