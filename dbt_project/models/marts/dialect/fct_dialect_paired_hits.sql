{{ config(materialized='view') }}
-- Both variants of a pair side by side at every k (1..depth): the unit of the paired tests.
-- A view, like fct_dialect_hits_at_k: the two variants' gold ranks are paired once per query
-- pair and then spread over the k grid, rather than joining two hit tables k by k.
with ranks as (
    select * from {{ ref('fct_dialect_gold_ranks') }}
),

comparisons as (
    select * from {{ ref('int_dialect_comparisons') }}
),

pairs as (
    select
        ranks_a.run_id,
        ranks_a.retriever,
        ranks_a.retriever_family,
        ranks_a.pair_set,
        ranks_a.pair_id,
        ranks_a.depth,
        comparisons.variant_a,
        comparisons.variant_b,
        ranks_a.rank_of_gold as rank_of_gold_a,
        ranks_b.rank_of_gold as rank_of_gold_b
    from comparisons
    inner join ranks as ranks_a
        on
            comparisons.run_id = ranks_a.run_id
            and comparisons.pair_set = ranks_a.pair_set
            and comparisons.variant_a = ranks_a.variant
    inner join ranks as ranks_b
        on
            ranks_a.run_id = ranks_b.run_id
            and ranks_a.pair_set = ranks_b.pair_set
            and ranks_a.retriever = ranks_b.retriever
            and ranks_a.pair_id = ranks_b.pair_id
            and comparisons.variant_b = ranks_b.variant
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
