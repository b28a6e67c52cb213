with source as (
    select * from {{ source('weat', 'weat_metric_results') }}
),

final as (
    select
        run_id,
        embedding,
        embedding_version,
        test_set,
        test,
        metric,
        attribute_set,
        status,
        status_reason,
        value,
        group_x_value,
        group_y_value,
        weat_sign,
        direction,
        ci_low,
        ci_high,
        ci_method,
        confidence_level,
        bootstrap_resamples,
        spread_low,
        spread_high,
        spread_method,
        p_value,
        p_holm,
        p_method,
        p_alternative,
        n_permutations,
        n_target_x,
        n_target_y,
        n_attributes,
        coverage,
        vectors,
        convention,
        details,
        seed
    from source
)

select * from final
