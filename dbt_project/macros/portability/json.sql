{# run_parameter on DuckDB: the value is JSON, read with ->>. #}
{% macro default__run_parameter(name, run_id_column, kind='varchar') -%}
    {%- set value -%}
        coalesce(
            (select parameters.value from {{ ref('stg_warehouse__run_parameters') }} as parameters
             where parameters.run_id = {{ run_id_column }} and parameters.name = '{{ name }}'),
            cast('{{ tojson(family_var(name)) | replace("'", "''") }}' as json)
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

{# run_parameter on Spark: JSON is a plain string there (parsed with from_json and
   get_json_object), and a correlated scalar subquery must be an aggregate, hence max(): a
   (run, name) pair has one row, so max() is that row's value. #}
{% macro spark__run_parameter(name, run_id_column, kind='varchar') -%}
    {%- set value -%}
        coalesce(
            (select max(parameters.value) from {{ ref('stg_warehouse__run_parameters') }} as parameters
             where parameters.run_id = {{ run_id_column }} and parameters.name = '{{ name }}'),
            '{{ tojson(family_var(name)) | replace("'", "''") }}'
        )
    {%- endset -%}
    {%- if kind == 'integer[]' -%}
        from_json({{ value }}, 'array<int>')
    {%- elif kind == 'integer' -%}
        cast(get_json_object({{ value }}, '$') as integer)
    {%- elif kind == 'double' -%}
        cast(get_json_object({{ value }}, '$') as double)
    {%- else -%}
        get_json_object({{ value }}, '$')
    {%- endif -%}
{%- endmacro %}
