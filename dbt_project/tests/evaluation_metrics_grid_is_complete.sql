-- The per-query metrics grid has no hole: every judged query of a run, for every retriever and
-- variant the run evaluated, has a row at every cutoff k of that run, also where nothing
-- relevant was retrieved (recall 0). The analysis reshapes the grid into queries x k, and a
-- mean over a grid with holes would only average the queries that found something.
-- One row per missing (run, query set, retriever, variant, query, k) cell.
with metrics as (
    select * from {{ ref('fct_evaluation_query_metrics') }}
),

evaluated as (
    select distinct
        run_id,
        query_set,
        retriever,
        variant
    from metrics
),

cutoffs as (
    select distinct
        run_id,
        k
    from metrics
),

judged_queries as (
    select distinct
        ranks.run_id,
        ranks.query_set,
        ranks.retriever,
        ranks.variant,
        ranks.query_id
    from {{ ref('fct_evaluation_relevant_ranks') }} as ranks
    inner join evaluated
        on
            ranks.run_id = evaluated.run_id
            and ranks.query_set = evaluated.query_set
            and ranks.retriever = evaluated.retriever
            and ranks.variant = evaluated.variant
),

grid as (
    select
        judged_queries.*,
        cutoffs.k
    from judged_queries
    inner join cutoffs
        on judged_queries.run_id = cutoffs.run_id
),

final as (
    select grid.*
    from grid
    left join metrics
        on
            grid.run_id = metrics.run_id
            and grid.query_set = metrics.query_set
            and grid.retriever = metrics.retriever
            and grid.variant = metrics.variant
            and grid.query_id = metrics.query_id
            and grid.k = metrics.k
    where metrics.run_id is null
)

select * from final
