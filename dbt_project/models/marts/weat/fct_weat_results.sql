{{ config(**run_keyed_config()) }}
-- The WEAT contract relation: one row per (run, embedding, test set, test). The first fourteen columns
-- are the contract; coverage is the lowest found share of the four word sets (what the threshold checks).
with statistics as (
    select * from {{ ref('stg_weat__test_statistics') }}
    where {{ is_new_run('run_id') }}
),

set_coverage as (
    select * from {{ ref('agg_weat_set_coverage') }}
),

coverage_per_test as (
    select
        run_id,
        embedding,
        test_set,
        test,
        min(coverage) as coverage,
        sum(n_listed) as n_words_listed,
        sum(n_found) as n_words_found,
        flatten({{ ordered_list('missing_words', 'set_role') }}) as missing_words
    from set_coverage
    group by run_id, embedding, test_set, test
),

final as (
    select
        statistics.run_id,
        statistics.embedding,
        statistics.test,
        statistics.status,
        statistics.n_target_x,
        statistics.n_target_y,
        statistics.n_attribute_a,
        statistics.n_attribute_b,
        coverage_per_test.coverage,
        statistics.effect_size,
        statistics.ci_low,
        statistics.ci_high,
        statistics.p_value,
        statistics.p_method,
        statistics.test_set,
        statistics.embedding_version,
        statistics.status_reason,
        coverage_per_test.n_words_listed,
        coverage_per_test.n_words_found,
        coverage_per_test.missing_words,
        statistics.test_statistic,
        statistics.effect_size_sd,
        statistics.confidence_level,
        statistics.ci_method,
        statistics.bootstrap_resamples,
        statistics.p_alternative,
        statistics.n_permutations,
        statistics.match_policy,
        statistics.min_coverage,
        statistics.balanced,
        statistics.seed
    from statistics
    inner join coverage_per_test
        on
            statistics.run_id = coverage_per_test.run_id
            and statistics.embedding = coverage_per_test.embedding
            and statistics.test_set = coverage_per_test.test_set
            and statistics.test = coverage_per_test.test
)

select * from final
