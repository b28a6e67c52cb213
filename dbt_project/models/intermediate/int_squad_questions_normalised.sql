with questions as (
    select * from {{ ref('stg_squad__questions') }}
),

final as (
    select
        split,
        row_idx,
        title,
        question,
        {{ normalise_text('context') }} as context_normalised,
    from questions
)

select * from final
