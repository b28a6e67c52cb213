{{ config(**run_keyed_config()) }}
-- Mean of each per-query metric over a run's queries (the bootstrap intervals are added by
-- the analysis step in analysis.evaluation_metrics_at_k).
with query_metrics as (
    select * from {{ ref('fct_evaluation_query_metrics') }}
    where {{ is_new_run('run_id') }}
),

long as (
    {{ unpivot_columns(
        'query_metrics', ['recall', 'precision', 'f1', 'hit_rate', 'mrr', 'ndcg', 'map', 'r_precision'], 'metric', 'value'
    ) }}
),

final as (
    select
        run_id,
        query_set,
        retriever,
        k,
        metric,
        avg(value) as value,
        count(*) as n_queries
    from long
    group by run_id, query_set, retriever, k, metric
)

select * from final
