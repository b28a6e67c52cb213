{# Relations and select lists the two engines spell differently. #}

{# The set operator stacking two selects whose columns match by name. Spark SQL has no
   `union all by name`: there the union is by position, so every caller lists the same
   columns in the same order in both selects (then the two readings agree). #}
{% macro union_all_by_name() -%}
    {{ return(adapter.dispatch('union_all_by_name', 'bias_warehouse')()) }}
{%- endmacro %}

{% macro default__union_all_by_name() -%}
    union all by name
{%- endmacro %}

{% macro spark__union_all_by_name() -%}
    union all
{%- endmacro %}

{# Every column of `relation` (a ref or source), as `alias`.column, but those in `except`.
   Spark SQL has no `* exclude`: there the columns are read from the catalog when dbt runs. #}
{% macro star_except(relation, alias, except) -%}
    {{ return(adapter.dispatch('star_except', 'bias_warehouse')(relation, alias, except)) }}
{%- endmacro %}

{% macro default__star_except(relation, alias, except) -%}
    {{ alias }}.* exclude ({{ except | join(', ') }})
{%- endmacro %}

{% macro spark__star_except(relation, alias, except) -%}
    {%- if not execute -%}
        {{ alias }}.*
    {%- else -%}
        {%- set names = [] -%}
        {%- for column in adapter.get_columns_in_relation(relation) if column.name not in except -%}
            {%- do names.append(alias ~ '.' ~ column.name) -%}
        {%- endfor -%}
        {{ names | join(', ') }}
    {%- endif -%}
{%- endmacro %}
