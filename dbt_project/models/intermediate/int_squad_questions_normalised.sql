-- A table: the normalisation (a Unicode-aware regex) runs once per distinct context, not once
-- per question and per model that reads it.
{{ config(materialized='table') }}

with questions as (
    select * from {{ ref('stg_squad__questions') }}
),

contexts as (
    select distinct
        split,
        context
    from questions
),

normalised as (
    select
        split,
        context,
        {{ normalise_text('context') }} as context_normalised
    from contexts
),

final as (
    select
        questions.split,
        questions.source_version,
        questions.row_idx,
        questions.title,
        questions.question,
        normalised.context_normalised
    from questions
    inner join normalised
        on
            questions.split = normalised.split
            and questions.context = normalised.context
)

select * from final
