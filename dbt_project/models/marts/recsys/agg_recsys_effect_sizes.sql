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

marker_thresholds as (
    {{ significance_thresholds_by_run('shares') }}
),

final as (
    select
        shares.run_id,
        shares.level,
        shares.group_value,
        shares.feature,
        shares.r_squared_mean,
        shares.share_significant,
        shares.n_conditions,
        {{ significance_marker('shares.share_significant', 'marker_thresholds') }} as marker,
        {{ wilson_bound('shares.n_significant', 'shares.n_conditions', 'low') }} as share_significant_ci_low,
        {{ wilson_bound('shares.n_significant', 'shares.n_conditions', 'high') }} as share_significant_ci_high,
        shares.result_source,
        shares.result_set,
        shares.dataset,
        shares.provider,
        shares.prompt_style,
        shares.n_significant,
        shares.bias_mean,
        shares.bias_mean_standardized_over_prompts
    from shares
    left join marker_thresholds
        on shares.run_id is not distinct from marker_thresholds.run_id
)

select * from final
