{{ config(**run_keyed_config()) }}
-- The judgments each run of an evaluation series is evaluated with, pinned when the run is first
-- built: its query set's qrels as the marts decide them (fct_evaluation_qrels, the one place: a
-- qrels file, else SQuAD's own contexts), for the queries the run recorded asking
-- (raw.retrieval_queries). Computed once per run and never again (not even by `biaswh rebuild`),
-- so a later qrels version never changes a finished run. A run whose judgments of the query set
-- are in raw.retrieval_judgments (the evaluation job copied them there before this model existed)
-- keeps those and gets no rows here.
with new_queries as (
    select * from {{ ref('stg_retrieval__queries') }}
    where {{ is_new_run('run_id', rebuild=false) }}
),

series_runs as (
    select * from {{ ref('stg_evaluation__runs') }}
),

asked as (
    select distinct
        new_queries.run_id,
        new_queries.query_set,
        new_queries.query_id
    from new_queries
    inner join series_runs
        on
            new_queries.run_id = series_runs.run_id
            and new_queries.query_set = series_runs.query_set
),

recorded_sets as (
    select distinct
        run_id,
        query_set
    from {{ ref('stg_retrieval__judgments') }}
),

qrels as (
    select * from {{ ref('fct_evaluation_qrels') }}
),

final as (
    select
        asked.run_id,
        asked.query_set,
        asked.query_id,
        qrels.doc_id,
        qrels.relevance,
        qrels.qrels_source
    from asked
    inner join qrels
        on
            asked.query_set = qrels.query_set
            and asked.query_id = qrels.query_id
    left join recorded_sets
        on
            asked.run_id = recorded_sets.run_id
            and asked.query_set = recorded_sets.query_set
    where recorded_sets.run_id is null
)

select * from final
