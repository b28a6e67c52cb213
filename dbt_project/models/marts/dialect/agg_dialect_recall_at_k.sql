{{ config(**run_keyed_config()) }}
-- depends_on: {{ ref('stg_warehouse__run_parameters') }}
-- Recall@k per variant with n and a Wilson 95% interval (z = 1.959964).
with hits as (
    select * from {{ ref('fct_dialect_hits_at_k') }}
    where {{ is_new_run('run_id', listed=true) }}
),

counts as (
    select
        run_id,
        retriever,
        retriever_family,
        pair_set,
        variant,
        k,
        count(*) as n_queries,
        count_if(is_hit) as n_hits
    from hits
    group by all
),

final as (
    select
        *,
        n_hits / n_queries as recall,
        {{ wilson_bound('n_hits', 'n_queries', 'low') }} as recall_ci_low,
        {{ wilson_bound('n_hits', 'n_queries', 'high') }} as recall_ci_high,
        {{ list_has(run_parameter('dialect_highlight_k', 'counts.run_id', 'integer[]'), 'k') }} as is_highlighted_k
    from counts
)

select * from final
