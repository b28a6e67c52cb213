{#
    The evaluation scope of a run-keyed evaluation mart, as two CTEs to follow `with`:
    evaluation_runs (the runs being built and their query set) and ranks (the rank of every
    relevant document of those runs' judged queries, from fct_retrieval_relevant_ranks).
    rankings_only: leave out hybrid_union, which has no ordering within a rank (ranks
    repeat), so it is not a ranking to evaluate.
#}
{% macro evaluation_scope(rankings_only=false) -%}
evaluation_runs as (
    select
        run_id,
        query_set
    from {{ ref('stg_evaluation__runs') }}
    where {{ is_new_run('run_id') }}
),

ranks as (
    select relevant_ranks.*
    from {{ ref('fct_retrieval_relevant_ranks') }} as relevant_ranks
    inner join evaluation_runs
        on
            relevant_ranks.run_id = evaluation_runs.run_id
            and relevant_ranks.query_set = evaluation_runs.query_set
    {% if rankings_only %}where relevant_ranks.retriever_family <> 'hybrid_union'{% endif %}
)
{%- endmacro %}
