{{ config(**run_keyed_config()) }}
-- Every threshold check of every evaluation run against the thresholds its series recorded, with the
-- series baseline's value; is_breached marks the alerts (significance: analysis step).
-- depends_on_machine marks the latency checks: they measure the machine, so two runs of one
-- config may differ there and nowhere else (the run comparison leaves those rows out).
-- The runs being built (macro evaluation_scope); a series' baseline may be an earlier run.
with {{ evaluation_scope(rows=none) }},

baselines as (
    select
        series_run_id,
        run_id as baseline_run_id
    from {{ ref('stg_evaluation__runs') }}
    where is_baseline
),

thresholds as (
    select * from {{ ref('stg_evaluation__thresholds') }}
),

metric_values as (
    select
        run_id,
        query_set,
        retriever,
        metric,
        k,
        value
    from {{ ref('agg_evaluation_metrics_at_k') }}
    union all
    select
        run_id,
        query_set,
        retriever,
        'top_score' as metric,
        null as k,
        avg(top_score) as value
    from {{ ref('fct_evaluation_top_scores') }}
    group by run_id, query_set, retriever
    union all
    select
        run_id,
        query_set,
        retriever,
        'latency_p95_ms' as metric,
        null as k,
        latency_p95_ms as value
    from {{ ref('agg_evaluation_latency') }}
),

-- The main retrievers and external systems only: sweep points (hybrid_minmax@0.3) are studied
-- in the fusion sweep, and hybrid_union (a set, not a ranking) is not evaluated.
main_values as (
    select * from metric_values
    where
        retriever not like '%@%'
        and retriever <> 'hybrid_union'
),

checks as (
    select
        evaluation_runs.run_id,
        evaluation_runs.series_run_id,
        evaluation_runs.label,
        evaluation_runs.position,
        baselines.baseline_run_id,
        main_values.query_set,
        main_values.retriever,
        thresholds.metric as metric_name,
        thresholds.k,
        thresholds.metric || coalesce('@' || thresholds.k, '') as metric,
        main_values.value,
        baseline_values.value as baseline_value,
        thresholds.direction,
        thresholds.threshold,
        thresholds.severity,
        thresholds.description,
        thresholds.max_achievable,
        thresholds.metric like 'latency%' as depends_on_machine
    from main_values
    inner join evaluation_runs
        on main_values.run_id = evaluation_runs.run_id
    inner join baselines
        on evaluation_runs.series_run_id = baselines.series_run_id
    inner join thresholds
        on
            evaluation_runs.series_run_id = thresholds.series_run_id
            and main_values.metric = thresholds.metric
            and main_values.k is not distinct from thresholds.k
            and (thresholds.retriever = '*' or main_values.retriever = thresholds.retriever)
    left join main_values as baseline_values
        on
            baselines.baseline_run_id = baseline_values.run_id
            and main_values.query_set = baseline_values.query_set
            and main_values.retriever = baseline_values.retriever
            and main_values.metric = baseline_values.metric
            and baseline_values.k is not distinct from main_values.k
),

final as (
    select
        *,
        coalesce(case direction
            when 'below' then value < threshold
            when 'above' then value > threshold
            when 'drop_pct' then
                baseline_value <> 0
                and (baseline_value - value) / abs(baseline_value) * 100 > threshold
        end, false) as is_breached
    from checks
)

select * from final
