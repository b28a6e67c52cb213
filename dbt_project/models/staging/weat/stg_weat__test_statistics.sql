with source as (
    select * from {{ source('weat', 'weat_test_statistics') }}
),

final as (
    select
        run_id,
        embedding,
        embedding_version,
        test_set,
        test,
        status,
        status_reason,
        n_target_x,
        n_target_y,
        n_attribute_a,
        n_attribute_b,
        test_statistic,
        effect_size,
        effect_size_sd,
        ci_low,
        ci_high,
        ci_method,
        confidence_level,
        bootstrap_resamples,
        p_value,
        p_method,
        p_alternative,
        n_permutations,
        match_policy,
        min_coverage,
        balanced,
        seed
    from source
)

select * from final
