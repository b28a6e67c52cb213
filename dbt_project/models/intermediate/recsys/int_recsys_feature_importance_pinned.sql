-- depends_on: {{ ref('stg_warehouse__run_parameters') }}
-- Feature importance per study run: the published file at the version the run pinned
-- (raw.run_inputs) and what the run's recsys_feature_importance job computed, with whether
-- the condition's dataset has the feature (macro recsys_pinned_results).
{%- set missing = {'published': {'permutation_importance': 'double'}, 'computed': {'shap_importance': 'double'}} %}
with {{ recsys_pinned_results(
    'recsys_feature_importance',
    published=ref('stg_recsys__published_feature_importance'),
    computed=ref('stg_recsys__computed_feature_importance'),
    columns=[
        'result_set', 'source_version', 'dataset', 'provider', 'prompt_style', 'feature', 'rf_importance',
        'shap_importance', 'permutation_importance', 'auroc', 'n_samples', 'n_positive', 'n_negative',
    ],
    missing=missing,
    computed_renames={'rf_importance': 'impurity_importance'},
    computed_where="status = 'ok'",
) }}

select * from final
