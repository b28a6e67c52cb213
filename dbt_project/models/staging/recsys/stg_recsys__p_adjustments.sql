-- Every recsys_bias job run's adjustment of each result set (keyed by that run).
with source as (
    select * from {{ source('recsys', 'recsys_p_adjustments') }}
),

final as (
    select
        result_source,
        result_set,
        feature,
        dataset,
        provider,
        prompt_style,
        p_value,
        p_value_adjusted,
        adjustment_method,
        n_tests,
        run_id,
        computed_at
    from source
)

select * from final
