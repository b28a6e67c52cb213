{{ config(materialized='view') }}
-- One row per query and k of the grid (1..depth): did the gold document appear in the top k?
-- A view over the run-keyed gold ranks (one row per query): a run's rows never change once
-- its gold ranks are written, and nothing of size runs x queries x depth is stored (50 M
-- rows for 100,000 variants x 5 retrievers x depth 100). Readers filter by run first.
with ranks as (
    select * from {{ ref('fct_dialect_gold_ranks') }}
),

final as (
    select
        ranks.run_id,
        ranks.retriever,
        ranks.retriever_family,
        ranks.pair_set,
        ranks.pair_id,
        ranks.variant,
        grid.k,
        coalesce(ranks.rank_of_gold <= grid.k, false) as is_hit
    from ranks
    {{ cross_join_integer_range('grid', 'k', '1', 'ranks.depth') }}
)

select * from final
