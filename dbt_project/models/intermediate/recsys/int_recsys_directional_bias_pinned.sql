-- depends_on: {{ ref('stg_warehouse__run_parameters') }}
-- Directional bias per study run: the published files at the version the run pinned
-- (raw.run_inputs) and the bias computed from the post sets it pinned, with whether the
-- condition's dataset has the feature (recsys_dataset_only_features).
with pins as (
    select * from {{ ref('stg_warehouse__run_inputs') }}
    where dataset = 'recsys_directional_bias'
),

published as (
    select
        pins.run_id,
        'published' as result_source,
        published.result_set,
        published.source_version,
        published.dataset,
        published.provider,
        published.prompt_style,
        published.feature,
        published.category,
        published.feature_type,
        cast(null as bigint) as n_recommended,
        cast(null as bigint) as n_pool,
        published.directional_bias,
        published.prop_pool,
        published.prop_recommended,
        published.mean_pool,
        published.mean_recommended,
        published.std_diff,
        cast(null as double) as ci_low,
        cast(null as double) as ci_high,
        cast(null as double) as std_diff_ci_low,
        cast(null as double) as std_diff_ci_high
    from {{ ref('stg_recsys__published_directional_bias') }} as published
    inner join pins
        on
            published.result_set = pins.source_name
            and published.source_version = pins.source_version
),

computed as (
    select
        run_id,
        'computed' as result_source,
        post_set as result_set,
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
        ci_low,
        ci_high,
        std_diff_ci_low,
        std_diff_ci_high
    from {{ ref('int_recsys_directional_bias_computed') }}
),

unioned as (
    select * from published
    union all
    select * from computed
),

final as (
    select
        unioned.*,
        {{ feature_in_dataset('unioned.feature', 'unioned.dataset', 'unioned.run_id') }} as feature_in_dataset
    from unioned
)

select * from final
