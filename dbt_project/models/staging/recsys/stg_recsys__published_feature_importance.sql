-- Every loaded version: study runs read the version they pinned (raw.run_inputs).
with source as (
    select * from {{ source('recsys', 'recsys_published_feature_importance') }}
),

final as (
    select
        result_set,
        source_version,
        source_row,
        feature,
        dataset,
        provider,
        prompt_style,
        rf_importance,
        shap_importance,
        auroc,
        n_samples,
        n_positive,
        n_negative,
        run_id as ingest_run_id,
        source_sha256
    from source
)

select * from final
