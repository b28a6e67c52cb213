-- Every pair, mapped to its gold document or carrying the reason it could not be.
with variants as (
    select * from {{ ref('stg_query_pairs__variants') }}
),

questions as (
    select * from {{ ref('fct_squad_questions') }}
),

pairs as (
    select distinct
        pair_set,
        pair_id,
        source_row,
        squad_split,
        squad_idx
    from variants
),

loaded_splits as (
    select distinct split from questions
),

final as (
    select
        pairs.pair_set,
        pairs.pair_id,
        pairs.source_row,
        pairs.squad_split,
        pairs.squad_idx,
        questions.doc_id as gold_doc_id,
        questions.question as squad_question,
        case
            when loaded_splits.split is null then 'squad_split_not_loaded'
            when questions.row_idx is null then 'squad_idx_not_in_split'
            else 'mapped'
        end as mapping_status
    from pairs
    left join loaded_splits
        on pairs.squad_split = loaded_splits.split
    left join questions
        on
            pairs.squad_split = questions.split
            and pairs.squad_idx = questions.row_idx
)

select * from final
