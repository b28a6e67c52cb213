-- Contract relation for ad hoc SQL and other tools: recall@k per (run, retriever, variant, k).
{{ config(materialized='view') }}

with recall as (
    select * from {{ ref('agg_dialect_recall_at_k') }}
),

final as (
    select
        run_id,
        retriever,
        variant,
        k,
        n_queries,
        n_hits,
        recall,
        pair_set,
        recall_ci_low,
        recall_ci_high
    from recall
)

select * from final
