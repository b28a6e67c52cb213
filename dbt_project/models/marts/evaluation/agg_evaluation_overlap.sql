{{ config(**run_keyed_config()) }}
-- Share of relevant documents found by dense only, BM25 only, both or neither, per run.
with overlap as (
    select * from {{ ref('fct_evaluation_overlap') }}
    where {{ is_new_run('run_id') }}
),

categories as (
    select {{ unnest_texts(['both', 'dense_only', 'bm25_only', 'neither']) }} as found_by
),

runs as (
    select
        run_id,
        query_set,
        k,
        count(*) as n_relevant,
        count(distinct query_id) as n_queries
    from overlap
    group by run_id, query_set, k
),

counts as (
    select
        run_id,
        query_set,
        found_by,
        count(*) as n_documents
    from overlap
    group by run_id, query_set, found_by
),

final as (
    select
        runs.run_id,
        runs.query_set,
        runs.k,
        categories.found_by,
        coalesce(counts.n_documents, 0) as n_documents,
        coalesce(counts.n_documents, 0) / runs.n_relevant as share,
        runs.n_relevant,
        runs.n_queries
    from runs
    cross join categories
    left join counts
        on
            runs.run_id = counts.run_id
            and runs.query_set = counts.query_set
            and categories.found_by = counts.found_by
)

select * from final
