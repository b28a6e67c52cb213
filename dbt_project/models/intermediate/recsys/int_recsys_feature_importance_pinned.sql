-- depends_on: {{ ref('stg_warehouse__run_parameters') }}
-- Feature importance per study run: the published file at the version the run pinned
-- (raw.run_inputs) and what the run's recsys_feature_importance job computed, with whether
-- the condition's dataset has the feature (recsys_dataset_only_features).
with pins as (
    select * from {{ ref('stg_warehouse__run_inputs') }}
    where dataset = 'recsys_feature_importance'
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
        published.rf_importance,
        published.shap_importance,
        cast(null as double) as permutation_importance,
        published.auroc,
        published.n_samples,
        published.n_positive,
        published.n_negative
    from {{ ref('stg_recsys__published_feature_importance') }} as published
    inner join pins
        on
            published.result_set = pins.source_name
            and published.source_version = pins.source_version
),

computed as (
    select
        run_id,
        'computed' as result_source,
        result_set,
        source_version,
        dataset,
        provider,
        prompt_style,
        feature,
        impurity_importance as rf_importance,
        cast(null as double) as shap_importance,
        permutation_importance,
        auroc,
        n_samples,
        n_positive,
        n_negative
    from {{ ref('stg_recsys__computed_feature_importance') }}
    where status = 'ok'
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
