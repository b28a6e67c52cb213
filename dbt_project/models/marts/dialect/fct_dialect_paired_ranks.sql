{{ config(**run_keyed_config()) }}
-- Both variants' gold ranks side by side, one row per (run, retriever, pair set, pair, variant
-- pair): the one place the A/B pairing is made. The paired hits (and from them the paired
-- outcomes), the error examples and the analysis's rank tests and hit matrices all read it.
with ranks as (
    select * from {{ ref('fct_dialect_gold_ranks') }}
    where {{ is_new_run('run_id') }}
),

comparisons as (
    select * from {{ ref('int_dialect_comparisons') }}
    where {{ is_new_run('run_id') }}
),

final as (
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
)

select * from final
