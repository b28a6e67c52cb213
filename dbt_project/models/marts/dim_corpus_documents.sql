-- The retrieval corpora: each SQuAD split's normalised contexts, de-duplicated, numbered in
-- first-occurrence order so doc_id is stable for the same data; and every ingested corpus
-- (BEIR, MS MARCO, JSONL/CSV/Parquet, text folders) as loaded, keyed by its name, with the
-- source's own document id.
with questions as (
    select * from {{ ref('int_squad_questions_normalised') }}
),

corpus_documents as (
    select * from {{ ref('stg_corpus__documents') }}
),

documents as (
    select
        split,
        context_normalised as document_text,
        {{ any_non_null('source_version') }} as source_version,
        min(row_idx) as first_row_idx,
        count(*) as n_questions
    from questions
    group by split, context_normalised
),

squad_documents as (
    select
        documents.split,
        cast(row_number() over (partition by documents.split order by documents.first_row_idx) - 1 as integer)
            as doc_id,
        questions.title,
        documents.document_text,
        {{ sha256_hex('documents.document_text') }} as text_sha256,
        documents.source_version,
        documents.first_row_idx,
        documents.n_questions,
        cast(row_number() over (partition by documents.split order by documents.first_row_idx) - 1 as {{ text_type() }})
            as source_doc_id,
        'squad' as corpus_source
    from documents
    inner join questions
        on
            documents.split = questions.split
            and documents.first_row_idx = questions.row_idx
),

other_documents as (
    select
        corpus as split,
        doc_id,
        title,
        document_text,
        {{ sha256_hex('document_text') }} as text_sha256,
        source_version,
        cast(null as integer) as first_row_idx,
        cast(null as bigint) as n_questions,
        source_doc_id,
        'corpus' as corpus_source
    from corpus_documents
),

final as (
    select * from squad_documents
    union all
    select * from other_documents
)

select * from final
