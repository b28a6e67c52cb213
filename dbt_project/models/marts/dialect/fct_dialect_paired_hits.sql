{{ config(materialized='incremental', incremental_strategy='delete+insert', unique_key='run_id', full_refresh=false, tags=['run_keyed']) }}
-- Both variants of a pair side by side at every k: the unit of the paired tests.
with hits as (
    select * from {{ ref('fct_dialect_hits_at_k') }}
    where {{ is_new_run('run_id') }}
),

comparisons as (
    select * from {{ ref('int_dialect_comparisons') }}
    where {{ is_new_run('run_id') }}
),

final as (
    select
        hits_a.run_id,
        hits_a.retriever,
        hits_a.retriever_family,
        hits_a.pair_set,
        hits_a.pair_id,
        hits_a.k,
        comparisons.variant_a,
        comparisons.variant_b,
        hits_a.is_hit as is_hit_a,
        hits_b.is_hit as is_hit_b,
    from comparisons
    inner join hits as hits_a
        on comparisons.run_id = hits_a.run_id
        and comparisons.pair_set = hits_a.pair_set
        and comparisons.variant_a = hits_a.variant
    inner join hits as hits_b
        on hits_a.run_id = hits_b.run_id
        and hits_a.pair_set = hits_b.pair_set
        and hits_a.retriever = hits_b.retriever
        and hits_a.pair_id = hits_b.pair_id
        and hits_a.k = hits_b.k
        and comparisons.variant_b = hits_b.variant
)

select * from final
