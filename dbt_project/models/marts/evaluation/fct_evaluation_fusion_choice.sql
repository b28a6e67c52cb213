{{ config(**run_keyed_config()) }}
-- The fusion setting chosen on the tune fold (best mean selection metric; ties go to the
-- smaller parameter, then the retriever name) and its value on the report fold, which played no part in the choice.
-- Means equal to 12 decimals are ties: a parallel sum's last bit must not pick the setting.
with sweep as (
    select * from {{ ref('agg_evaluation_fusion_sweep') }}
    where {{ is_new_run('run_id') }}
),

tune as (
    select
        *,
        row_number() over (
            partition by run_id, query_set, retriever_family
            order by round(value, 12) desc, parameter asc, retriever asc
        ) as tune_rank
    from sweep
    where fold = 'tune'
),

report as (
    select * from sweep
    where fold = 'report'
),

final as (
    select
        tune.run_id,
        tune.query_set,
        tune.retriever_family,
        tune.retriever as chosen_retriever,
        tune.parameter as chosen_parameter,
        tune.metric,
        tune.k,
        tune.value as tune_value,
        report.value as report_value,
        tune.n_queries as n_tune_queries,
        report.n_queries as n_report_queries
    from tune
    left join report
        on
            tune.run_id = report.run_id
            and tune.query_set = report.query_set
            and tune.retriever = report.retriever
    where tune.tune_rank = 1
)

select * from final
