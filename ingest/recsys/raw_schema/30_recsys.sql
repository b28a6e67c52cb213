-- Recommendation bias: which features of a post an LLM recommender favours.
-- Ingest writes the post-level items, their feature types and published condition-level
-- results; the `recsys_bias` study job writes computed results and adjusted p-values.

-- Long form: one row per (item shown to the model, feature), so any feature set fits.
create table if not exists raw.recsys_post_values (
    run_id varchar not null,
    source_sha256 varchar not null,
    source_version integer not null,
    post_set varchar not null,          -- the post-level file's name, e.g. synthetic_demo
    source_row integer not null,        -- data row of the posts file, from 1
    item_id varchar not null,           -- the item's id column, else its source row
    dataset varchar not null,
    provider varchar not null,          -- the LLM provider or model
    prompt_style varchar not null,
    trial varchar not null,             -- '1' when the file has no trial column
    selected boolean not null,          -- true when the model recommended the item
    feature varchar not null,
    value_text varchar,                 -- categorical/binary value as text; null when missing
    value_number double                 -- numerical/binary value; null when missing or categorical
);

-- One row per feature of a post set, with its declared type (the feature table's file).
create table if not exists raw.recsys_feature_types (
    run_id varchar not null,
    source_sha256 varchar not null,     -- sha256 of the feature table file
    source_version integer not null,
    post_set varchar not null,
    source_row integer not null,
    feature varchar not null,
    feature_type varchar not null       -- numerical, categorical, binary
);

-- Condition-level results in the original tool's format (pool_vs_recommended_summary.csv).
create table if not exists raw.recsys_published_results (
    run_id varchar not null,
    source_sha256 varchar not null,
    source_version integer not null,
    result_set varchar not null,
    source_row integer not null,
    feature varchar not null,
    dataset varchar not null,
    provider varchar not null,
    prompt_style varchar not null,
    bias double not null,
    p_value double not null,
    metric varchar not null,
    significant boolean not null
);

-- Written by the `recsys_bias` job: one row per (post set, feature, condition) per run.
create table if not exists raw.recsys_computed_results (
    run_id varchar not null,            -- the study run whose job computed it
    computed_at timestamp not null,
    result_set varchar not null,        -- the post set it was computed from
    post_set_version integer not null,
    pool_definition varchar not null,   -- non_recommended (original) or all_shown
    feature varchar not null,
    feature_type varchar not null,
    dataset varchar not null,
    provider varchar not null,
    prompt_style varchar not null,
    bias double not null,
    p_value double not null,
    metric varchar not null,
    significant boolean not null,
    status varchar not null,            -- ok, insufficient data, no variance, error
    message varchar,
    test_variant varchar not null,
    statistic double,
    degrees_of_freedom double,
    n_recommended integer not null,
    n_pool integer not null,
    hedges_g double,
    ci_low double,                      -- interval of Hedges' g (numerical features)
    ci_high double,
    bias_corrected_v double,            -- Bergsma's bias-corrected Cramér's V
    yates_applied boolean
);

-- Written by the `recsys_bias` job: multiple-comparison adjustment over each result set.
create table if not exists raw.recsys_p_adjustments (
    run_id varchar not null,
    computed_at timestamp not null,
    result_source varchar not null,     -- published or computed
    result_set varchar not null,
    feature varchar not null,
    dataset varchar not null,
    provider varchar not null,
    prompt_style varchar not null,
    p_value double not null,
    p_value_adjusted double not null,
    adjustment_method varchar not null, -- holm or fdr_bh (statsmodels multipletests)
    n_tests integer not null
);

-- The paper's published directional bias (directional_bias_data.csv): one row per feature,
-- category ('mean_difference' for continuous features) and condition per loaded version.
create table if not exists raw.recsys_published_directional_bias (
    run_id varchar not null,
    source_sha256 varchar not null,
    source_version integer not null,
    result_set varchar not null,
    source_row integer not null,
    feature varchar not null,
    category varchar not null,
    dataset varchar not null,
    provider varchar not null,
    prompt_style varchar not null,
    directional_bias double not null,   -- prop_recommended - prop_pool, or mean_recommended - mean_pool
    prop_pool double,                   -- categorical rows only
    prop_recommended double,
    feature_type varchar not null,      -- categorical or continuous
    mean_pool double,                   -- continuous rows only
    mean_recommended double,
    std_diff double
);

-- The paper's published feature importance (feature_importance_data.csv): one row per
-- feature and condition per loaded version, of a classifier predicting `selected`.
create table if not exists raw.recsys_published_feature_importance (
    run_id varchar not null,
    source_sha256 varchar not null,
    source_version integer not null,
    result_set varchar not null,
    source_row integer not null,
    feature varchar not null,
    dataset varchar not null,
    provider varchar not null,
    prompt_style varchar not null,
    rf_importance double not null,
    shap_importance double not null,
    auroc double not null,
    n_samples integer not null,
    n_positive integer not null,
    n_negative integer not null
);

-- Written by the `recsys_feature_importance` job: one row per (post set, condition, feature)
-- per run, from a seeded, cross-validated random forest predicting `selected`.
create table if not exists raw.recsys_computed_feature_importance (
    run_id varchar not null,
    computed_at timestamp not null,
    result_set varchar not null,        -- the post set
    post_set_version integer not null,
    dataset varchar not null,
    provider varchar not null,
    prompt_style varchar not null,
    feature varchar not null,
    feature_type varchar not null,
    impurity_importance double,         -- mean over folds of feature_importances_
    permutation_importance double,      -- mean over folds of the held-out ROC AUC drop
    permutation_importance_sd double,
    auroc double,                       -- mean held-out ROC AUC over folds
    auroc_sd double,
    n_folds integer,
    n_samples integer not null,
    n_positive integer not null,
    n_negative integer not null,
    seed bigint not null,
    model_variant varchar,
    status varchar not null,            -- ok or error
    message varchar
);
