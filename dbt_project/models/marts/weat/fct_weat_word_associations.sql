{{ config(**run_keyed_config()) }}
-- Every listed word of every test run on an embedding: found or not, how, used or not, and s(w, A, B).
with coverage as (
    select * from {{ ref('stg_weat__word_coverage') }}
    where {{ is_new_run('run_id') }}
),

test_words as (
    select * from {{ ref('stg_weat__test_words') }}
),

final as (
    select
        coverage.run_id,
        coverage.embedding,
        coverage.embedding_version,
        coverage.test_set,
        coverage.test,
        coverage.set_role,
        test_words.set_label,
        coverage.position,
        coverage.word,
        coverage.match_kind,
        coverage.matched_word,
        coverage.matched_word is not null as is_found,
        coverage.is_used,
        coverage.drop_reason,
        coverage.association
    from coverage
    left join test_words
        on
            coverage.test_set = test_words.test_set
            and coverage.test = test_words.test
            and coverage.set_role = test_words.set_role
            and coverage.position = test_words.position
)

select * from final
