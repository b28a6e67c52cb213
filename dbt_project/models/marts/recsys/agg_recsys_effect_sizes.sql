{{ config(**run_keyed_config()) }}
-- depends_on: {{ ref('stg_warehouse__run_parameters') }}
-- The contract relation of the paper's headline figure: mean R² per feature and group, the
-- share of significant conditions and its marker, at the five levels.
with grouped as (
    select * from {{ ref('int_recsys_r_squared_grouped') }}
    where {{ is_new_run('run_id') }}
),

shares as (
    select
        *,
        n_significant / n_conditions as share_significant,
        -- The paper's figure 03: a feature's mean signed bias per prompt style, standardised
        -- over the prompt styles (population standard deviation).
        case
            when level = 'prompt'
                then
                    (bias_mean - avg(bias_mean) over per_feature_prompts)
                    / nullif(stddev_pop(bias_mean) over per_feature_prompts, 0)
        end as bias_mean_standardized_over_prompts
    from grouped
    window per_feature_prompts as (partition by run_id, result_source, result_set, level, feature)
),

final as (
    select
        run_id,
        level,
        group_value,
        feature,
        r_squared_mean,
        share_significant,
        n_conditions,
        {{ significance_marker('share_significant', 'shares.run_id') }} as marker,
        {{ wilson_bound('n_significant', 'n_conditions', 'low') }} as share_significant_ci_low,
        {{ wilson_bound('n_significant', 'n_conditions', 'high') }} as share_significant_ci_high,
        result_source,
        result_set,
        dataset,
        provider,
        prompt_style,
        n_significant,
        bias_mean,
        bias_mean_standardized_over_prompts
    from shares
)

select * from final
