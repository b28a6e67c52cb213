-- depends_on: {{ ref('stg_warehouse__run_parameters') }}
-- Directional bias per study run: the published files at the version the run pinned
-- (raw.run_inputs) and the bias computed from the post sets it pinned, with whether the
-- condition's dataset has the feature (macro recsys_pinned_results).
{%- set published_missing = {
    'n_recommended': 'bigint', 'n_pool': 'bigint', 'ci_low': 'double', 'ci_high': 'double',
    'std_diff_ci_low': 'double', 'std_diff_ci_high': 'double',
} %}
with {{ recsys_pinned_results(
    'recsys_directional_bias',
    published=ref('stg_recsys__published_directional_bias'),
    computed=ref('int_recsys_directional_bias_computed'),
    columns=[
        'result_set', 'source_version', 'dataset', 'provider', 'prompt_style', 'feature', 'category',
        'feature_type', 'n_recommended', 'n_pool', 'directional_bias', 'prop_pool', 'prop_recommended',
        'mean_pool', 'mean_recommended', 'std_diff', 'ci_low', 'ci_high', 'std_diff_ci_low', 'std_diff_ci_high',
    ],
    missing={'published': published_missing},
    computed_renames={'result_set': 'post_set'},
) }}

select * from final
