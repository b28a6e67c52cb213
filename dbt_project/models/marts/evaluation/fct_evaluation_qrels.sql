-- The judgments every evaluation uses: an ingested qrels file where a query set has one,
-- otherwise SQuAD's own (each question is relevant to its own context's document, grade 1).
with file_qrels as (
    select * from {{ ref('stg_evaluation__qrels') }}
),

squad_questions as (
    select * from {{ ref('fct_squad_questions') }}
),

judged_sets as (
    select distinct query_set from file_qrels
),

derived as (
    select
        'squad_questions_' || squad_questions.split as query_set,
        cast(squad_questions.row_idx as {{ text_type() }}) as query_id,
        squad_questions.doc_id,
        1 as relevance,
        'squad_context' as qrels_source
    from squad_questions
    where 'squad_questions_' || squad_questions.split not in (select judged_sets.query_set from judged_sets)
),

from_files as (
    select
        query_set,
        query_id,
        doc_id,
        relevance,
        'file:' || qrels_name as qrels_source
    from file_qrels
),

final as (
    select * from from_files
    union all
    select * from derived
)

select * from final
