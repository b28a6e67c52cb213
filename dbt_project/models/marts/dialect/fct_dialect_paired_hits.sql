{{ config(materialized='view') }}
-- Both variants of a pair side by side at every k (1..depth): the unit of the paired tests.
-- A view, like fct_dialect_hits_at_k: the two variants' gold ranks, paired once per query pair
-- in fct_dialect_paired_ranks, spread over the k grid, rather than joining two hit tables k by k.
with pairs as (
    select * from {{ ref('fct_dialect_paired_ranks') }}
),

final as (
    select {{ paired_hits_columns('pairs', 'grid.k') }}
    from pairs
    {{ cross_join_integer_range('grid', 'k', '1', 'pairs.depth') }}
)

select * from final
