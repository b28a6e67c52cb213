-- depends_on: {{ ref('stg_warehouse__run_parameters') }}
-- Published and computed condition-level results side by side, each with its adjusted p-value,
-- keyed by the study run that tested (computed) or adjusted (published) them: a published result
-- set appears once per study run that reported it, with that run's adjustment and parameters.
with adjustments as (
    select * from {{ ref('stg_recsys__p_adjustments') }}
),

published_runs as (
    select distinct
        run_id,
        result_set
    from adjustments
    where result_source = 'published'
),

published as (
    select
        {{ star_except(ref('stg_recsys__published_results'), 'results', ['run_id']) }},  -- noqa: RF02
        published_runs.run_id
    from {{ ref('stg_recsys__published_results') }} as results
    inner join published_runs
        on results.result_set = published_runs.result_set
),

computed as (
    select * from {{ ref('stg_recsys__computed_results') }}
),

unioned as (
    select
        'published' as result_source,
        result_set,
        source_version,
        run_id,
        {{ recsys_column_list(recsys_original_columns()) }}
        -- The original file does not record the type; its metric tells the family.
        case when metric like 'Cohen%' then 'numerical' else 'categorical_or_binary' end as feature_type,
        {{ recsys_column_list(recsys_test_columns(), nulls=recsys_test_columns(), last=true) }}
    from published
    union all
    select
        'computed' as result_source,
        result_set,
        source_version,
        run_id,
        {{ recsys_column_list(recsys_original_columns()) }}
        feature_type,
        {{ recsys_column_list(recsys_test_columns(), last=true) }}
    from computed
),

final as (
    select
        unioned.*,
        adjustments.p_value_adjusted,
        adjustments.adjustment_method,
        adjustments.p_value_adjusted
        < {{ run_parameter('verdicts_alpha', 'unioned.run_id', 'double') }} as significant_adjusted
    from unioned
    left join adjustments
        on
            unioned.run_id = adjustments.run_id
            and unioned.result_source = adjustments.result_source
            and unioned.result_set = adjustments.result_set
            and unioned.feature = adjustments.feature
            and unioned.dataset = adjustments.dataset
            and unioned.provider = adjustments.provider
            and unioned.prompt_style = adjustments.prompt_style
)

select * from final
