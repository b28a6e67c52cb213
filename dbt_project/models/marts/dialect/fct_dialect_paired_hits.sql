{{ config(materialized='view') }}
-- Both variants of a pair side by side at every k (1..depth): the unit of the paired tests.
-- A view, like fct_dialect_hits_at_k: the two variants' gold ranks, paired once per query pair
-- in fct_dialect_paired_ranks, spread over the k grid, rather than joining two hit tables k by k.
with pairs as (
    select * from {{ ref('fct_dialect_paired_ranks') }}
),

final as (
    select
        pairs.run_id,
        pairs.retriever,
        pairs.retriever_family,
        pairs.pair_set,
        pairs.pair_id,
        grid.k,
        pairs.variant_a,
        pairs.variant_b,
        coalesce(pairs.rank_of_gold_a <= grid.k, false) as is_hit_a,
        coalesce(pairs.rank_of_gold_b <= grid.k, false) as is_hit_b
    from pairs
    {{ cross_join_integer_range('grid', 'k', '1', 'pairs.depth') }}
)

select * from final
