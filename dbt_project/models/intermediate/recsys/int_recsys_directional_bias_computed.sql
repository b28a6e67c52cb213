-- Directional bias from post-level data, per study run that pinned the post set (raw.run_inputs).
-- The pool is every post shown in the condition (trials pooled), the recommended ones included,
-- as the paper's prop_pool and mean_pool; each denominator counts the posts with a non-missing
-- value of the feature. Categorical features: per category, share among the recommended minus
-- share in the pool. Numerical and binary features (category 'mean_difference'): mean among the
-- recommended minus mean in the pool, and that difference over the pool's sample SD (std_diff).
-- Because the pool contains the recommended posts, recommended - pool = (n_other / n_pool) *
-- (recommended - not recommended); the 95% intervals scale the normal-approximation (Wald)
-- interval of that two-independent-group difference by n_other / n_pool.
{%- set z_975 = double_literal('1.959963984540054') %}
with pins as (
    select * from {{ ref('stg_warehouse__run_inputs') }}
    where dataset = 'recsys_posts'
),

posts as (
    select
        pins.run_id,
        {{ star_except(ref('int_recsys_post_values_typed'), 'post_values', ['run_id']) }}  -- noqa: RF02
    from {{ ref('int_recsys_post_values_typed') }} as post_values
    inner join pins
        on
            post_values.post_set = pins.source_name
            and post_values.source_version = pins.source_version
),

categorical_counts as (
    select
        run_id,
        post_set,
        source_version,
        dataset,
        provider,
        prompt_style,
        feature,
        value_text as category,
        count(*) filter (where selected) as k_recommended,
        count(*) as k_pool
    from posts
    where feature_type = 'categorical' and value_text is not null
    group by all
),

categorical as (
    select
        *,
        sum(k_recommended) over per_condition as n_recommended,
        sum(k_pool) over per_condition as n_pool,
        -- a condition without recommended (or other) posts divides by zero; where drops it below
        {{ ieee_divide('k_recommended', 'sum(k_recommended) over per_condition') }} as prop_recommended,
        {{ ieee_divide('k_pool', 'sum(k_pool) over per_condition') }} as prop_pool,
        {{ ieee_divide(
            '(k_pool - k_recommended)', '(sum(k_pool) over per_condition - sum(k_recommended) over per_condition)'
        ) }} as prop_other
    from categorical_counts
    window per_condition as (partition by run_id, post_set, source_version, dataset, provider, prompt_style, feature)
),

numerical_sums as (
    select
        run_id,
        post_set,
        source_version,
        dataset,
        provider,
        prompt_style,
        feature,
        count(*) filter (where selected) as n_recommended,
        count(*) as n_pool,
        avg(value_number) filter (where selected) as mean_recommended,
        avg(value_number) as mean_pool,
        var_samp(value_number) filter (where selected) as variance_recommended,
        var_samp(value_number) filter (where not selected) as variance_other,
        stddev_samp(value_number) as sd_pool
    from posts
    where feature_type in ('numerical', 'binary') and value_number is not null
    group by all
),

unioned as (
    select
        run_id,
        post_set,
        source_version,
        dataset,
        provider,
        prompt_style,
        feature,
        category,
        'categorical' as feature_type,
        n_recommended,
        n_pool,
        prop_recommended - prop_pool as directional_bias,
        prop_pool,
        prop_recommended,
        cast(null as double) as mean_pool,
        cast(null as double) as mean_recommended,
        cast(null as double) as std_diff,
        cast(null as double) as sd_pool,
        (n_pool - n_recommended) / n_pool * sqrt(
            prop_recommended * (1 - prop_recommended) / n_recommended
            + prop_other * (1 - prop_other) / (n_pool - n_recommended)
        ) as standard_error
    from categorical
    where n_recommended > 0 and n_pool > n_recommended
    union all
    select
        run_id,
        post_set,
        source_version,
        dataset,
        provider,
        prompt_style,
        feature,
        'mean_difference' as category,
        'continuous' as feature_type,
        n_recommended,
        n_pool,
        mean_recommended - mean_pool as directional_bias,
        cast(null as double) as prop_pool,
        cast(null as double) as prop_recommended,
        mean_pool,
        mean_recommended,
        (mean_recommended - mean_pool) / nullif(sd_pool, 0) as std_diff,
        sd_pool,
        (n_pool - n_recommended) / n_pool * sqrt(
            variance_recommended / n_recommended + variance_other / (n_pool - n_recommended)
        ) as standard_error
    from numerical_sums
    where n_recommended > 1 and n_pool - n_recommended > 1
),

final as (
    select
        run_id,
        post_set,
        source_version,
        dataset,
        provider,
        prompt_style,
        feature,
        category,
        feature_type,
        n_recommended,
        n_pool,
        directional_bias,
        prop_pool,
        prop_recommended,
        mean_pool,
        mean_recommended,
        std_diff,
        directional_bias - {{ z_975 }} * standard_error as ci_low,
        directional_bias + {{ z_975 }} * standard_error as ci_high,
        (directional_bias - {{ z_975 }} * standard_error) / nullif(sd_pool, 0) as std_diff_ci_low,
        (directional_bias + {{ z_975 }} * standard_error) / nullif(sd_pool, 0) as std_diff_ci_high
    from unioned
)

select * from final
