{{ config(**run_keyed_config()) }}
-- depends_on: {{ ref('stg_warehouse__run_parameters') }}
-- The contract relation: the original eight columns first, then ours.
with normalised as (
    select * from {{ ref('int_recsys_condition_results_normalised') }}
    where {{ is_new_run('run_id') }}
),

final as (
    select
        {{ recsys_column_list(recsys_original_columns()) }}
        result_source,
        result_set,
        source_version,
        run_id,
        feature_type,
        {{ recsys_column_list(recsys_test_columns()) }}
        p_value_adjusted,
        adjustment_method,
        significant_adjusted,
        bias_normalized,
        bias_signed_normalized
    from normalised
)

select * from final
