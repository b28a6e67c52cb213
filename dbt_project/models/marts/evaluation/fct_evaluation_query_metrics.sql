{{ config(**run_keyed_config()) }}
-- depends_on: {{ ref('stg_warehouse__run_parameters') }}
-- Per-query retrieval metrics at every cutoff k, with trec_eval's definitions (see the yml).
-- The runs being built and the ranks of their relevant documents, rankings only (macro
-- evaluation_scope).
with {{ evaluation_scope(rankings_only=true) }},

-- The judgments the run recorded when it ran (its pinned qrels).
qrels as (
    select judgments.*
    from {{ ref('int_retrieval_judgments_pinned') }} as judgments
    inner join evaluation_runs
        on judgments.run_id = evaluation_runs.run_id
),

-- The run's own cutoffs (run parameter evaluation_k).
cutoffs as (
    {{ select_unnested(
        'evaluation_runs', 'run_id', run_parameter('evaluation_k', 'evaluation_runs.run_id', 'integer[]'), 'k'
    ) }}
),

-- The relevant documents each ranking returned, numbered in rank order (relevant ones so far).
retrieved as (
    select
        *,
        row_number() over (
            partition by run_id, query_set, retriever, query_id, variant
            order by rank_of_document
        ) as relevant_so_far
    from ranks
    where rank_of_document is not null
),

at_k as (
    select
        retrieved.run_id,
        retrieved.query_set,
        retrieved.retriever,
        retrieved.query_id,
        retrieved.variant,
        cutoffs.k,
        count(*) as relevant_retrieved,
        min(retrieved.rank_of_document) as first_relevant_rank,
        sum(retrieved.relevance / log2(retrieved.rank_of_document + 1)) as dcg,
        sum(retrieved.relevant_so_far / retrieved.rank_of_document) as precision_sum
    from retrieved
    inner join cutoffs
        on
            retrieved.run_id = cutoffs.run_id
            and retrieved.rank_of_document <= cutoffs.k
    group by all
),

ideal as (
    select
        run_id,
        query_set,
        query_id,
        relevance,
        row_number() over (partition by run_id, query_set, query_id order by relevance desc) as ideal_rank
    from qrels
    where relevance > 0
),

ideal_at_k as (
    select
        ideal.run_id,
        ideal.query_set,
        ideal.query_id,
        cutoffs.k,
        sum(ideal.relevance / log2(ideal.ideal_rank + 1)) as ideal_dcg
    from ideal
    inner join cutoffs
        on
            ideal.run_id = cutoffs.run_id
            and ideal.ideal_rank <= cutoffs.k
    group by all
),

r_precision as (
    select
        run_id,
        query_set,
        retriever,
        query_id,
        variant,
        count(*) as relevant_in_top_r
    from retrieved
    where rank_of_document <= n_relevant
    group by all
),

-- As trec_eval: only queries with at least one relevant document are evaluated.
queries as (
    select distinct
        run_id,
        query_set,
        retriever,
        query_id,
        variant,
        n_relevant
    from ranks
),

grid as (
    select
        queries.run_id,
        queries.query_set,
        queries.retriever,
        queries.query_id,
        queries.variant,
        queries.n_relevant,
        cutoffs.k
    from queries
    inner join cutoffs
        on queries.run_id = cutoffs.run_id
),

counted as (
    select
        grid.*,
        coalesce(at_k.relevant_retrieved, 0) as relevant_retrieved,
        at_k.first_relevant_rank,
        coalesce(at_k.dcg, 0) as dcg,
        coalesce(at_k.precision_sum, 0) as precision_sum,
        ideal_at_k.ideal_dcg,
        coalesce(r_precision.relevant_in_top_r, 0) as relevant_in_top_r
    from grid
    left join at_k
        on
            grid.run_id = at_k.run_id
            and grid.query_set = at_k.query_set
            and grid.retriever = at_k.retriever
            and grid.query_id = at_k.query_id
            and grid.variant = at_k.variant
            and grid.k = at_k.k
    left join ideal_at_k
        on
            grid.run_id = ideal_at_k.run_id
            and grid.query_set = ideal_at_k.query_set
            and grid.query_id = ideal_at_k.query_id
            and grid.k = ideal_at_k.k
    left join r_precision
        on
            grid.run_id = r_precision.run_id
            and grid.query_set = r_precision.query_set
            and grid.retriever = r_precision.retriever
            and grid.query_id = r_precision.query_id
            and grid.variant = r_precision.variant
),

metrics as (
    select
        run_id,
        query_set,
        retriever,
        query_id,
        variant,
        k,
        n_relevant,
        relevant_retrieved,
        first_relevant_rank,
        relevant_retrieved / n_relevant as recall,
        relevant_retrieved / k as precision,
        case
            when relevant_retrieved = 0 then 0.0
            else
                {{ double_literal('2.0') }} * (relevant_retrieved / k) * (relevant_retrieved / n_relevant)
                / ((relevant_retrieved / k) + (relevant_retrieved / n_relevant))
        end as f1,
        case when relevant_retrieved > 0 then 1.0 else 0.0 end as hit_rate,
        coalesce({{ double_literal('1.0') }} / first_relevant_rank, 0.0) as mrr,
        dcg / ideal_dcg as ndcg,
        precision_sum / n_relevant as map,
        relevant_in_top_r / n_relevant as r_precision
    from counted
),

-- Rounded to 12 decimals: sums are then the same whatever order the rows are added in.
final as (
    select
        run_id,
        query_set,
        retriever,
        query_id,
        variant,
        k,
        n_relevant,
        relevant_retrieved,
        first_relevant_rank,
        round(recall, 12) as recall,
        round(precision, 12) as precision,
        round(f1, 12) as f1,
        hit_rate,
        round(mrr, 12) as mrr,
        round(ndcg, 12) as ndcg,
        round(map, 12) as map,
        round(r_precision, 12) as r_precision
    from metrics
)

select * from final
