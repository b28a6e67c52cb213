{{ config(**run_keyed_config()) }}
-- depends_on: {{ ref('stg_warehouse__run_parameters') }}
-- Mean selection metric (var evaluation_select_metric at evaluation_select_k) of every
-- min-max weight and RRF constant, on each fold of the run's seeded tune/report split.
with query_metrics as (
    select * from {{ ref('fct_evaluation_query_metrics') }}
    where {{ is_new_run('run_id') }}
),

folds as (
    select * from {{ ref('stg_evaluation__query_folds') }}
),

runs as (
    select * from {{ ref('stg_retrieval__runs') }}
    where retriever_family in ('hybrid_minmax', 'hybrid_rrf')
),

{%- set at_select_k -%}
    (
        select * from query_metrics
        where k = {{ run_parameter('evaluation_select_k', 'query_metrics.run_id', 'integer') }}
    )
{%- endset %}

long as (
    {{ unpivot_columns(
        at_select_k, ['recall', 'precision', 'f1', 'hit_rate', 'mrr', 'ndcg', 'map', 'r_precision'], 'metric', 'value'
    ) }}
),

final as (
    select
        long.run_id,
        long.query_set,
        runs.retriever_family,
        long.retriever,
        case when runs.retriever_family = 'hybrid_minmax' then runs.fusion_weight_bm25 else runs.rrf_k end
            as parameter,
        folds.fold,
        long.metric,
        long.k,
        avg(long.value) as value,
        count(*) as n_queries
    from long
    inner join runs
        on
            long.run_id = runs.run_id
            and long.query_set = runs.query_set
            and long.retriever = runs.retriever
    inner join folds
        on
            long.run_id = folds.run_id
            and long.query_set = folds.query_set
            and long.query_id = folds.query_id
    where long.metric = {{ run_parameter('evaluation_select_metric', 'long.run_id') }}
    group by all
)

select * from final
