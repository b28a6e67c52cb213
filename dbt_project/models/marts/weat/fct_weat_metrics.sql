{{ config(**run_keyed_config()) }}
-- The embedding metrics beside WEAT (RND, RNSB, MAC, ECT, RIPA, word-set sensitivity of d): one row per
-- (run, embedding, test set, test, metric, attribute set), with the labels of the sets it compares.
with metrics as (
    select * from {{ ref('stg_weat__metric_results') }}
    where {{ is_new_run('run_id') }}
),

tests as (
    select * from {{ ref('dim_weat_tests') }}
),

final as (
    select
        metrics.run_id,
        metrics.embedding,
        metrics.test_set,
        metrics.test,
        metrics.metric,
        metrics.attribute_set,
        metrics.status,
        case metrics.attribute_set
            when 'attribute_a' then tests.attribute_a_label
            when 'attribute_b' then tests.attribute_b_label
            else tests.attribute_a_label || ' vs ' || tests.attribute_b_label
        end as attribute_label,
        tests.target_x_label,
        tests.target_y_label,
        metrics.value,
        metrics.group_x_value,
        metrics.group_y_value,
        metrics.weat_sign,
        metrics.direction,
        metrics.ci_low,
        metrics.ci_high,
        metrics.spread_low,
        metrics.spread_high,
        metrics.p_value,
        metrics.p_holm,
        metrics.p_method,
        metrics.p_alternative,
        metrics.n_permutations,
        metrics.n_target_x,
        metrics.n_target_y,
        metrics.n_attributes,
        metrics.coverage,
        metrics.vectors,
        metrics.convention,
        metrics.ci_method,
        metrics.confidence_level,
        metrics.bootstrap_resamples,
        metrics.spread_method,
        metrics.status_reason,
        metrics.embedding_version,
        metrics.details,
        metrics.seed
    from metrics
    left join tests
        on
            metrics.test_set = tests.test_set
            and metrics.test = tests.test
)

select * from final
