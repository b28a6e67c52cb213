{{ config(**run_keyed_config()) }}
-- Where the gold document landed for each query of a pair set; a miss is explicit, never a
-- silent null. Read from the one retrieval-metric chain (fct_evaluation_relevant_ranks): the gold
-- document is the run's judgment of the pair, a qrel with one relevant document. Where a pair
-- has several relevant documents, its gold is the best-ranked one (smallest id among misses).
with ranks as (
    select * from {{ ref('fct_evaluation_relevant_ranks') }}
    where
        query_set_kind = 'pairs'
        and {{ is_new_run('run_id') }}
),

queries as (
    select * from {{ ref('int_retrieval_queries_judged') }}
    where
        query_set_kind = 'pairs'
        and {{ is_new_run('run_id') }}
),

gold as (
    select *
    from ranks
    qualify row_number() over (
        partition by run_id, query_set, retriever, query_id, variant
        order by rank_of_document asc nulls last, doc_id asc
    ) = 1
),

final as (
    select
        gold.run_id,
        gold.retriever,
        gold.retriever_family,
        gold.query_set as pair_set,
        gold.query_id as pair_id,
        gold.variant,
        queries.query_text,
        gold.corpus_split,
        gold.doc_id as gold_doc_id,
        gold.depth,
        gold.rank_of_document as rank_of_gold,
        gold.score_of_document as score_of_gold,
        gold.rank_of_document is not null as is_found_within_depth,
        coalesce(gold.rank_of_document, gold.depth + 1) as rank_or_depth_plus_one,
        coalesce({{ double_literal('1.0') }} / gold.rank_of_document, 0.0) as reciprocal_rank,
        case
            when gold.rank_of_document is null then 'not found within depth ' || gold.depth
            else 'rank ' || gold.rank_of_document
        end as gold_outcome
    from gold
    inner join queries
        on
            gold.run_id = queries.run_id
            and gold.query_set = queries.query_set
            and gold.query_id = queries.query_id
            and gold.variant = queries.variant
)

select * from final
