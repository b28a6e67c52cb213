{#
    The evaluation scope of a run-keyed evaluation mart, as CTEs to follow `with`:
    evaluation_runs (the runs being built: their query set, series, label and position in it)
    and, named `name`, the rows of the model `rows` that belong to those runs and query sets
    (default: ranks, the rank of every relevant document of the runs' judged queries, from
    fct_evaluation_relevant_ranks); rows=none: evaluation_runs alone.
    rankings_only: leave out hybrid_union, which has no ordering within a rank (ranks
    repeat), so it is not a ranking to evaluate.
#}
{% macro evaluation_scope(rows='fct_evaluation_relevant_ranks', name='ranks', rankings_only=false) -%}
evaluation_runs as (
    select
        run_id,
        query_set,
        series_run_id,
        label,
        position
    from {{ ref('stg_evaluation__runs') }}
    where {{ is_new_run('run_id') }}
){% if rows is not none %},

{{ name }} as (
    select scoped.*
    from {{ ref(rows) }} as scoped
    inner join evaluation_runs
        on
            scoped.run_id = evaluation_runs.run_id
            and scoped.query_set = evaluation_runs.query_set
    {% if rankings_only %}where scoped.retriever_family <> 'hybrid_union'{% endif %}
){% endif %}
{%- endmacro %}
