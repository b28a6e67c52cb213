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
        results.* exclude (run_id),  -- noqa: RF02
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
        feature,
        dataset,
        provider,
        prompt_style,
        bias,
        p_value,
        metric,
        significant,
        -- The original file does not record the type; its metric tells the family.
        case when metric like 'Cohen%' then 'numerical' else 'categorical_or_binary' end as feature_type,
        cast(null as varchar) as pool_definition,
        cast(null as varchar) as status,
        cast(null as varchar) as message,
        cast(null as varchar) as test_variant,
        cast(null as double) as statistic,
        cast(null as double) as degrees_of_freedom,
        cast(null as integer) as n_recommended,
        cast(null as integer) as n_pool,
        cast(null as double) as hedges_g,
        cast(null as double) as ci_low,
        cast(null as double) as ci_high,
        cast(null as double) as bias_corrected_v,
        cast(null as boolean) as yates_applied
    from published
    union all
    select
        'computed' as result_source,
        result_set,
        source_version,
        run_id,
        feature,
        dataset,
        provider,
        prompt_style,
        bias,
        p_value,
        metric,
        significant,
        feature_type,
        pool_definition,
        status,
        message,
        test_variant,
        statistic,
        degrees_of_freedom,
        n_recommended,
        n_pool,
        hedges_g,
        ci_low,
        ci_high,
        bias_corrected_v,
        yates_applied
    from computed
),

final as (
    select
        unioned.*,
        adjustments.p_value_adjusted,
        adjustments.adjustment_method,
        adjustments.p_value_adjusted
        < {{ run_parameter('recsys_alpha', 'unioned.run_id', 'double') }} as significant_adjusted
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
