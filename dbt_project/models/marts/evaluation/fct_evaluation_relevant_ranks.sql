{{ config(**run_keyed_config()) }}
-- Where each relevant document of each judged query landed, per retriever: the one place a
-- run's results meet its judgments. Every retrieval metric (fct_evaluation_query_metrics) and the
-- dialect study's gold ranks (fct_dialect_gold_ranks) are computed from these rows. A relevant
-- document the retriever did not return within depth has a null rank, never a missing row.
with queries as (
    select * from {{ ref('int_retrieval_queries_judged') }}
    where {{ is_new_run('run_id') }}
),

judgments as (
    select * from {{ ref('int_retrieval_judgments_pinned') }}
    where
        relevance > 0
        and {{ is_new_run('run_id') }}
),

retrieval_runs as (
    select * from {{ ref('stg_retrieval__runs') }}
    where {{ is_new_run('run_id') }}
),

results as (
    select * from {{ ref('stg_retrieval__results') }}
    where {{ is_new_run('run_id') }}
),

-- hybrid_union may list a document at more than one rank: its best rank counts.
relevant_hits as (
    select
        results.run_id,
        results.query_set,
        results.retriever,
        results.query_id,
        results.variant,
        results.doc_id,
        min(results.rank) as rank_of_document,
        max(results.score) as score_of_document
    from results
    inner join judgments
        on
            results.run_id = judgments.run_id
            and results.query_set = judgments.query_set
            and results.query_id = judgments.query_id
            and results.doc_id = judgments.doc_id
    group by all
),

final as (
    select
        queries.run_id,
        queries.query_set,
        queries.query_set_kind,
        retrieval_runs.retriever,
        retrieval_runs.retriever_family,
        retrieval_runs.depth,
        queries.query_id,
        queries.variant,
        queries.corpus_split,
        queries.n_relevant,
        judgments.doc_id,
        judgments.relevance,
        judgments.judgment_source,
        relevant_hits.rank_of_document,
        relevant_hits.score_of_document
    from queries
    inner join retrieval_runs
        on
            queries.run_id = retrieval_runs.run_id
            and queries.query_set = retrieval_runs.query_set
    inner join judgments
        on
            queries.run_id = judgments.run_id
            and queries.query_set = judgments.query_set
            and queries.query_id = judgments.query_id
    left join relevant_hits
        on
            queries.run_id = relevant_hits.run_id
            and queries.query_set = relevant_hits.query_set
            and retrieval_runs.retriever = relevant_hits.retriever
            and queries.query_id = relevant_hits.query_id
            and queries.variant = relevant_hits.variant
            and judgments.doc_id = relevant_hits.doc_id
)

select * from final
