{#
    dbt wraps the model of every generic data test in this macro (dbt's own, overridden here;
    see dbt's docs on the `where` config). Besides a test's own `where`, the tests of a model
    whose rows belong to runs check only the runs being built (macro is_built_run), so rows of
    a failed run never fail a later build, and a study's build tests what it built, not every
    run the warehouse holds. A model's rows belong to runs when it is tagged run_keyed (column
    run_id) or its config meta names the column: `+meta: {run_column: series_run_id}`.
#}
{% macro get_where_subquery(relation) -%}
    {%- set conditions = [] -%}
    {%- set where = config.get('where', '') -%}
    {%- if where -%}
        {%- do conditions.append('(' ~ where ~ ')') -%}
    {%- endif -%}
    {%- set run_column = tested_run_column() -%}
    {%- if run_column -%}
        {%- do conditions.append(is_built_run(run_column)) -%}
    {%- endif -%}
    {%- if conditions -%}
        {%- do return('(select * from ' ~ relation ~ ' where ' ~ conditions | join(' and ') ~ ') dbt_subquery') -%}
    {%- else -%}
        {%- do return(relation) -%}
    {%- endif -%}
{%- endmacro %}


{# The run column of the model the current test is attached to, or none. #}
{% macro tested_run_column() -%}
    {%- if not execute or not model.attached_node -%}
        {%- do return(none) -%}
    {%- endif -%}
    {%- set tested = graph.nodes.get(model.attached_node) -%}
    {%- if tested is none -%}
        {%- do return(none) -%}
    {%- endif -%}
    {%- set column = tested.config.meta.get('run_column') -%}
    {%- if not column and 'run_keyed' in tested.tags -%}
        {%- set column = 'run_id' -%}
    {%- endif -%}
    {%- do return(column or none) -%}
{%- endmacro %}
