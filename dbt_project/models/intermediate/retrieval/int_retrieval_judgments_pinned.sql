-- The relevance judgments each run is evaluated with, as the run recorded them: its pinned
-- qrels (raw.retrieval_judgments) where it recorded any for a query set, otherwise the gold
-- document it recorded for each query (raw.retrieval_queries.relevant_doc_id), which is a
-- qrel with one relevant document (grade 1). A later qrels or corpus version never changes them.
with recorded as (
    select * from {{ ref('stg_retrieval__judgments') }}
),

queries as (
    select * from {{ ref('stg_retrieval__queries') }}
    where relevant_doc_id is not null
),

recorded_sets as (
    select distinct
        run_id,
        query_set
    from recorded
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

from_recorded as (
    select
        run_id,
        query_set,
        query_id,
        doc_id,
        relevance,
        qrels_source as judgment_source
    from recorded
),

final as (
    select * from from_recorded
    union all
    select * from gold_documents
)

select * from final
