-- The retrieval corpus: each split's normalised contexts, de-duplicated, numbered in
-- first-occurrence order so doc_id is stable for the same data.
with questions as (
    select * from {{ ref('int_squad_questions_normalised') }}
),

documents as (
    select
        split,
        context_normalised as document_text,
        any_value(source_version) as source_version,
        min(row_idx) as first_row_idx,
        count(*) as n_questions
    from questions
    group by split, context_normalised
),

final as (
    select
        documents.split,
        cast(row_number() over (partition by documents.split order by documents.first_row_idx) - 1 as integer)
            as doc_id,
        questions.title,
        documents.document_text,
        sha256(documents.document_text) as text_sha256,
        documents.source_version,
        documents.first_row_idx,
        documents.n_questions
    from documents
    inner join questions
        on
            documents.split = questions.split
            and documents.first_row_idx = questions.row_idx
)

select * from final
