{#
    A run's recorded parameter (raw.run_parameters, written from its study config at the
    start of the run), falling back to the documented default in dbt_project.yml vars for
    runs that recorded none. kind: 'integer[]', 'integer', 'double' or 'varchar'.
    The calling model must declare `-- depends_on: {{ ref('stg_warehouse__run_parameters') }}`.
#}
{% macro run_parameter(name, run_id_column, kind='varchar') -%}
    {%- set value -%}
        coalesce(
            (select parameters.value from {{ ref('stg_warehouse__run_parameters') }} as parameters
             where parameters.run_id = {{ run_id_column }} and parameters.name = '{{ name }}'),
            cast('{{ tojson(var(name)) | replace("'", "''") }}' as json)
        )
    {%- endset -%}
    {%- if kind == 'integer[]' -%}
        cast(from_json({{ value }}, '["integer"]') as integer[])
    {%- elif kind == 'integer' -%}
        cast({{ value }} ->> '$' as integer)
    {%- elif kind == 'double' -%}
        cast({{ value }} ->> '$' as double)
    {%- else -%}
        ({{ value }} ->> '$')
    {%- endif -%}
{%- endmacro %}
