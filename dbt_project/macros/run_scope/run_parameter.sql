{#
    A run's recorded parameter (raw.run_parameters, written from its study config at the
    start of the run), falling back to the documented default in dbt_project.yml vars for
    runs that recorded none (null for a plugin family's parameter, which every run of it records). kind: 'integer[]', 'integer', 'double' or 'varchar'.
    The calling model must declare `-- depends_on: {{ ref('stg_warehouse__run_parameters') }}`.
#}
{% macro run_parameter(name, run_id_column, kind='varchar') -%}
    {{ return(adapter.dispatch('run_parameter', 'bias_warehouse')(name, run_id_column, kind)) }}
{%- endmacro %}
