{{ config(materialized='incremental', incremental_strategy='delete+insert', unique_key='run_id', full_refresh=false, tags=['run_keyed']) }}
-- One row per query and k of the grid (1..depth): did the gold document appear in the top k?
with ranks as (
    select * from {{ ref('fct_dialect_gold_ranks') }}
    where {{ is_new_run('run_id') }}
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
        coalesce(ranks.rank_of_gold <= grid.k, false) as is_hit,
    from ranks
    cross join lateral (select unnest(range(1, ranks.depth + 1)) as k) as grid
)

select * from final
