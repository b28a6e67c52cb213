-- depends_on: {{ ref('stg_warehouse__run_parameters') }}
-- Each condition's effect size as variance explained, as the paper defines it: Cohen's d ->
-- d² / (d² + 4), Cramér's V -> V²; any other metric (no variance, insufficient data, error)
-- has no R² and is left out. A feature named by a recsys_dataset_only_features rule counts
-- only in that rule's datasets (the paper: author_* only on twitter). alpha: the paper's level for
-- its raw-p markers (as published), not the verdicts' (significant_adjusted carries those).
with results as (
    select
        summary.*,
        {{ run_parameter('recsys_published_alpha', 'summary.run_id', 'double') }} as alpha
    from {{ ref('int_recsys_condition_results_normalised') }} as summary
),

run_rules as (
    {{ dataset_only_features_by_run('results') }}
),

final as (
    select
        results.*,
        case
            when
                results.metric = {{ text_literal("Cohen's d") }}
                then results.bias * results.bias / (results.bias * results.bias + 4)
            when results.metric = {{ text_literal("Cramér's V") }} then results.bias * results.bias
        end as r_squared,
        {{ feature_in_dataset('results.feature', 'results.dataset', 'run_rules.dataset_only_features') }}
            as feature_in_dataset
    from results
    left join run_rules
        on results.run_id is not distinct from run_rules.run_id
)

select * from final
