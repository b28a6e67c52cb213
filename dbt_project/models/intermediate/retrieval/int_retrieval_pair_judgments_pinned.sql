{{ config(**run_keyed_config()) }}
-- The judgments of every pair a run asked whose gold is a judged query, pinned when the run is
-- first built: the pair's gold judgments as the marts decide them (fct_pair_gold_judgments, the
-- one place), for the pairs the run recorded asking (raw.retrieval_queries), with the text of each
-- relevant document for the error examples. Computed once per run and never again (not even by
-- `biaswh rebuild`), so a later qrels, pair set or corpus version never changes a finished run.
-- A run whose judgments of a pair set are in raw.retrieval_judgments (the retrieval job copied
-- them there before this model existed) keeps those and gets no rows here.
with asked as (
    select distinct
        run_id,
        query_set,
        query_id
    from {{ ref('stg_retrieval__queries') }}
    where
        query_set_kind = 'pairs'
        and {{ is_new_run('run_id', rebuild=false) }}
),

recorded_sets as (
    select distinct
        run_id,
        query_set
    from {{ ref('stg_retrieval__judgments') }}
),

gold as (
    select * from {{ ref('fct_pair_gold_judgments') }}
),

documents as (
    select * from {{ ref('dim_corpus_documents') }}
),

final as (
    select
        asked.run_id,
        asked.query_set,
        asked.query_id,
        gold.doc_id,
        gold.relevance,
        gold.qrels_source,
        gold.corpus_split,
        case when gold.relevance > 0 then documents.document_text end as document_text
    from asked
    inner join gold
        on
            asked.query_set = gold.pair_set
            and asked.query_id = gold.pair_id
    left join recorded_sets
        on
            asked.run_id = recorded_sets.run_id
            and asked.query_set = recorded_sets.query_set
    left join documents
        on
            gold.corpus_split = documents.split
            and gold.doc_id = documents.doc_id
    where recorded_sets.run_id is null
)

select * from final
