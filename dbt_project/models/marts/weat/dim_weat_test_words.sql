-- Every listed word of every loaded test, the definition's exclusions marked.
with test_words as (
    select * from {{ ref('stg_weat__test_words') }}
),

final as (
    select
        test_set,
        test,
        test_title,
        set_role,
        set_label,
        position,
        word,
        excluded_by_definition,
        reference,
        source_version,
        source_sha256,
        run_id
    from test_words
)

select * from final
