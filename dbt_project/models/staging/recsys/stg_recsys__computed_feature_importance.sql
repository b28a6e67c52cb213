with source as (
    select * from {{ source('recsys', 'recsys_computed_feature_importance') }}
),

final as (
    select
        run_id,
        computed_at,
        result_set,
        post_set_version as source_version,
        dataset,
        provider,
        prompt_style,
        feature,
        feature_type,
        impurity_importance,
        permutation_importance,
        permutation_importance_sd,
        auroc,
        auroc_sd,
        n_folds,
        n_samples,
        n_positive,
        n_negative,
        seed,
        model_variant,
        status,
        message
    from source
)

select * from final
