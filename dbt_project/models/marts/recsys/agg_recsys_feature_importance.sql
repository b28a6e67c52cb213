{{ config(**run_keyed_config()) }}
-- depends_on: {{ ref('stg_warehouse__run_parameters') }}
-- How much each feature tells a classifier which posts were selected, averaged over the
-- conditions of each group: over the datasets that have the feature, and (as the paper's
-- figure 07 does) over every dataset.
with conditions as (
    select * from {{ ref('int_recsys_feature_importance_pinned') }}
    where {{ is_new_run('run_id') }}
),

grouped as (
    {% call(level) recsys_grouped_by_level('conditions') %}
        feature,
        count(*) filter (where feature_in_dataset) as n_conditions,
        avg(shap_importance) filter (where feature_in_dataset) as shap_importance_mean,
        avg(rf_importance) filter (where feature_in_dataset) as rf_importance_mean,
        avg(permutation_importance) filter (where feature_in_dataset) as permutation_importance_mean,
        avg(auroc) filter (where feature_in_dataset) as auroc_mean,
        count(*) as n_conditions_all_datasets,
        avg(shap_importance) as shap_importance_mean_all_datasets,
        avg(rf_importance) as rf_importance_mean_all_datasets,
        avg(permutation_importance) as permutation_importance_mean_all_datasets,
        sum(n_samples) as n_samples,
        sum(n_positive) as n_positive
    {% endcall %}
),

final as (
    select * from grouped
)

select * from final
