{# Lists. DuckDB spells them list_contains / unnest(range()); Spark array_contains / explode(sequence()). #}

{# True when the list holds the value. #}
{% macro list_has(list_expression, value) -%}
    {{ return(adapter.dispatch('list_has', 'bias_warehouse')(list_expression, value)) }}
{%- endmacro %}

{% macro default__list_has(list_expression, value) -%}
    list_contains({{ list_expression }}, {{ value }})
{%- endmacro %}

{% macro spark__list_has(list_expression, value) -%}
    array_contains({{ list_expression }}, {{ value }})
{%- endmacro %}

{# A join clause giving each row of the preceding relation one row per integer
   first..last (inclusive) in column `column` of relation `alias`. Spark's generator join
   is LATERAL VIEW; a correlated lateral subquery cannot hold a generator there. #}
{% macro cross_join_integer_range(alias, column, first, last) -%}
    {{ return(adapter.dispatch('cross_join_integer_range', 'bias_warehouse')(alias, column, first, last)) }}
{%- endmacro %}

{% macro default__cross_join_integer_range(alias, column, first, last) -%}
    cross join lateral (select unnest(range({{ first }}, {{ last }} + 1)) as {{ column }}) as {{ alias }}
{%- endmacro %}

{% macro spark__cross_join_integer_range(alias, column, first, last) -%}
    lateral view explode(sequence({{ first }}, {{ last }})) {{ alias }} as {{ column }}
{%- endmacro %}
