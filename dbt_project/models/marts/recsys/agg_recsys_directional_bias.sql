{{ config(**run_keyed_config()) }}
-- depends_on: {{ ref('stg_warehouse__run_parameters') }}
-- Which categories and values the models over- or under-select: directional bias per feature
-- and category, averaged over the conditions of each group (features counted only in the
-- datasets that have them).
with conditions as (
    select * from {{ ref('int_recsys_directional_bias_pinned') }}
    where {{ is_new_run('run_id') }} and feature_in_dataset
),

grouped as (
    {% call(level) recsys_grouped_by_level('conditions') %}
        feature,
        category,
        feature_type,
        count(*) as n_conditions,
        avg(directional_bias) as directional_bias_mean,
        stddev_samp(directional_bias) as directional_bias_sd,
        avg(prop_pool) as prop_pool_mean,
        avg(prop_recommended) as prop_recommended_mean,
        avg(mean_pool) as mean_pool_mean,
        avg(mean_recommended) as mean_recommended_mean,
        avg(std_diff) as std_diff_mean,
        sum(n_recommended) as n_recommended,
        sum(n_pool) as n_pool,
        -- A condition's own intervals (computed rows); an average of intervals is no interval.
        {% if level == 'dataset_model_prompt' %}{{ any_non_null('ci_low') }}{% else %}cast(null as double){% endif %}
            as ci_low,
        {% if level == 'dataset_model_prompt' %}{{ any_non_null('ci_high') }}{% else %}cast(null as double){% endif %}
            as ci_high,
        {% if level == 'dataset_model_prompt' %}{{ any_non_null('std_diff_ci_low') }}{% else %}cast(null as double){% endif %}
            as std_diff_ci_low,
        {% if level == 'dataset_model_prompt' %}{{ any_non_null('std_diff_ci_high') }}{% else %}cast(null as double){% endif %}
            as std_diff_ci_high
    {% endcall %}
),

final as (
    select * from grouped
)

select * from final
