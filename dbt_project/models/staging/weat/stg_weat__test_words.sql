-- Only the latest loaded version of each test set.
with source as (
    select * from {{ source('weat', 'weat_test_words') }}
),

latest_versions as (
    {{ latest_versions('weat_tests', 'test_set') }}
),

final as (
    select
        source.test_set,
        source.test,
        source.test_title,
        source.set_role,
        source.set_label,
        source.position,
        source.word,
        source.excluded_by_definition,
        source.reference,
        source.source_version,
        source.run_id,
        source.source_sha256
    from source
    inner join latest_versions
        on
            source.test_set = latest_versions.test_set
            and source.source_version = latest_versions.source_version
)

select * from final
