with source as (
    select * from {{ source('weat', 'weat_word_coverage') }}
),

final as (
    select
        run_id,
        embedding,
        embedding_version,
        test_set,
        test,
        set_role,
        position,
        word,
        match_kind,
        matched_word,
        used as is_used,
        drop_reason,
        association
    from source
)

select * from final
