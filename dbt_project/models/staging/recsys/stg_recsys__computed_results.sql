-- Every recsys_bias job run's computed results (keyed by that run: marts are run-keyed).
with source as (
    select * from {{ source('recsys', 'recsys_computed_results') }}
),

final as (
    select
        result_set,
        post_set_version as source_version,
        pool_definition,
        feature,
        feature_type,
        dataset,
        provider,
        prompt_style,
        bias,
        p_value,
        metric,
        significant,
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
        yates_applied,
        run_id,
        computed_at
    from source
)

select * from final
