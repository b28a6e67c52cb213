-- depends_on: {{ ref('stg_warehouse__run_parameters') }}
-- Each condition's effect size as variance explained, as the paper defines it: Cohen's d ->
-- d² / (d² + 4), Cramér's V -> V²; any other metric (no variance, insufficient data, error)
-- has no R² and is left out. A feature named by a recsys_dataset_only_features rule counts
-- only in that rule's datasets (the paper: author_* only on twitter).
with results as (
    select
        summary.*,
        {{ run_parameter('recsys_alpha', 'summary.run_id', 'double') }} as alpha,
        {{ run_parameter('recsys_dataset_only_features', 'summary.run_id') }} as dataset_only_rules
    from {{ ref('pool_vs_recommended_summary') }} as summary
),

rules as (
    select
        run_id,
        trim(split_part(rule, '=', 1)) as feature_glob,
        list_transform(string_split(split_part(rule, '=', 2), ','), x -> trim(x)) as datasets
    from (
        select distinct
            run_id,
            unnest(string_split(dataset_only_rules, ';')) as rule
        from results
    ) as split_rules
    where trim(rule) <> ''
),

final as (
    select
        results.* exclude (dataset_only_rules),
        case
            when results.metric = 'Cohen''s d' then results.bias * results.bias / (results.bias * results.bias + 4)
            when results.metric = 'Cramér''s V' then results.bias * results.bias
        end as r_squared,
        not exists (
            select 1 from rules
            where
                rules.run_id = results.run_id
                and results.feature glob rules.feature_glob
                and not list_contains(rules.datasets, results.dataset)
        ) as feature_in_dataset
    from results
)

select * from final
