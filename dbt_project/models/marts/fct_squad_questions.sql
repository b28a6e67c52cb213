with questions as (
    select * from {{ ref('int_squad_questions_normalised') }}
),

documents as (
    select * from {{ ref('dim_corpus_documents') }}
),

final as (
    select
        questions.split,
        questions.source_version,
        questions.row_idx,
        questions.question,
        documents.doc_id
    from questions
    inner join documents
        on
            questions.split = documents.split
            and questions.context_normalised = documents.document_text
)

select * from final
