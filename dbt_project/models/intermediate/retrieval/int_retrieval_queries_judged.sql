-- Every query a run asked that has at least one relevant judgment (trec_eval evaluates only
-- those), with how many documents are relevant to it. Queries of a pair set share the judgments
-- of their pair (query_id is the pair id), so every variant of a pair has the same gold.
with queries as (
    select * from {{ ref('stg_retrieval__queries') }}
),

judgments as (
    select * from {{ ref('int_retrieval_judgments_pinned') }}
),

judged as (
    select
        run_id,
        query_set,
        query_id,
        count(*) filter (where relevance > 0) as n_relevant
    from judgments
    group by run_id, query_set, query_id
),

final as (
    select
        queries.run_id,
        queries.query_set,
        queries.query_set_kind,
        queries.query_id,
        queries.variant,
        queries.corpus_split,
        queries.query_text,
        judged.n_relevant
    from queries
    inner join judged
        on
            queries.run_id = judged.run_id
            and queries.query_set = judged.query_set
            and queries.query_id = judged.query_id
    where judged.n_relevant > 0
)

select * from final
