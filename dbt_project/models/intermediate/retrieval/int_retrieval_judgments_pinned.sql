-- The relevance judgments each run is evaluated with, as the run pinned them: the qrels it
-- recorded (raw.retrieval_judgments) where it recorded any for a query set, else, pinned when the
-- run was first built, the gold judgments of the judged-query pairs it asked
-- (int_retrieval_pair_judgments_pinned) or an evaluation run's query set qrels
-- (int_evaluation_judgments_pinned), otherwise the gold document it recorded for each query
-- (raw.retrieval_queries.relevant_doc_id), which is a qrel with one relevant document (grade 1).
-- A later qrels or corpus version never changes them.
with recorded as (
    select * from {{ ref('stg_retrieval__judgments') }}
),

pair_judgments as (
    select
        run_id,
        query_set,
        query_id,
        doc_id,
        relevance,
        qrels_source
    from {{ ref('int_retrieval_pair_judgments_pinned') }}
),

-- columns named, not *: a union matches by position, and a unit test's mocked ref (on Spark) may
-- hold its columns in another order
evaluation_judgments as (
    select
        run_id,
        query_set,
        query_id,
        doc_id,
        relevance,
        qrels_source
    from {{ ref('int_evaluation_judgments_pinned') }}
),

queries as (
    select * from {{ ref('stg_retrieval__queries') }}
    where relevant_doc_id is not null
),

-- a run's judgments of a query set come from one of the pins, never two (the same six columns)
pinned as (
    select
        run_id,
        query_set,
        query_id,
        doc_id,
        relevance,
        qrels_source as judgment_source
    from recorded
    union all
    select * from pair_judgments
    union all
    select * from evaluation_judgments
),

recorded_sets as (
    select distinct
        run_id,
        query_set
    from pinned
),

gold_documents as (
    select distinct
        queries.run_id,
        queries.query_set,
        queries.query_id,
        queries.relevant_doc_id as doc_id,
        1 as relevance,
        'gold_document' as judgment_source
    from queries
    left join recorded_sets
        on
            queries.run_id = recorded_sets.run_id
            and queries.query_set = recorded_sets.query_set
    where recorded_sets.run_id is null
),

final as (
    select * from pinned
    union all
    select * from gold_documents
)

select * from final
