{{ config(**run_keyed_config()) }}
-- MRR and mean rank of the gold document per (run, retriever, pair set, variant).
with ranks as (
    select * from {{ ref('fct_dialect_gold_ranks') }}
    where {{ is_new_run('run_id') }}
),

final as (
    select
        run_id,
        retriever,
        retriever_family,
        pair_set,
        variant,
        max(depth) as depth,
        count(*) as n_queries,
        count_if(is_found_within_depth) as n_found,
        avg(reciprocal_rank) as mrr,
        avg(rank_of_gold) as mean_rank_of_gold_when_found,
        avg(rank_or_depth_plus_one) as mean_rank_miss_as_depth_plus_one,
        median(rank_or_depth_plus_one) as median_rank_miss_as_depth_plus_one
    from ranks
    group by all
)

select * from final
