{{
    config(
        materialized='incremental',
        full_refresh=false,
        tags=['run_keyed'],
        **run_keyed_incremental()
    )
}}
-- depends_on: {{ ref('stg_warehouse__run_parameters') }}
-- The contract relation: the original eight columns first, then ours.
with normalised as (
    select * from {{ ref('int_recsys_condition_results_normalised') }}
    where {{ is_new_run('run_id') }}
),

final as (
    select
        feature,
        dataset,
        provider,
        prompt_style,
        bias,
        p_value,
        metric,
        significant,
        result_source,
        result_set,
        source_version,
        run_id,
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
        yates_applied,
        p_value_adjusted,
        adjustment_method,
        significant_adjusted,
        bias_normalized,
        bias_signed_normalized
    from normalised
)

select * from final
