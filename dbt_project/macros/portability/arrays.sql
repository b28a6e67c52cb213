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

{# A select of `relation` giving one row per element of `list_expression` (in column
   `column`) beside `keep_column`. Spark cannot explode an expression holding a correlated
   subquery (run_parameter's), so there the list is computed in a subquery first. #}
{% macro select_unnested(relation, keep_column, list_expression, column) -%}
    {{ return(adapter.dispatch('select_unnested', 'bias_warehouse')(relation, keep_column, list_expression, column)) }}
{%- endmacro %}

{% macro default__select_unnested(relation, keep_column, list_expression, column) -%}
    select
        {{ keep_column }},
        unnest({{ list_expression }}) as {{ column }}
    from {{ relation }}
{%- endmacro %}

{% macro spark__select_unnested(relation, keep_column, list_expression, column) -%}
    select
        lists.{{ keep_column }},
        unnested.{{ column }}
    from (select {{ keep_column }}, {{ list_expression }} as list_value from {{ relation }}) as lists
    lateral view explode(lists.list_value) unnested as {{ column }}
{%- endmacro %}

{# One row per text in `values` (a list of plain strings, quoted here), as a select-list
   expression. #}
{% macro unnest_texts(values) -%}
    {{ return(adapter.dispatch('unnest_texts', 'bias_warehouse')(values)) }}
{%- endmacro %}

{% macro default__unnest_texts(values) -%}
    unnest([{% for value in values %}'{{ value }}'{% if not loop.last %}, {% endif %}{% endfor %}])
{%- endmacro %}

{% macro spark__unnest_texts(values) -%}
    explode(array({% for value in values %}'{{ value }}'{% if not loop.last %}, {% endif %}{% endfor %}))
{%- endmacro %}

{# An empty list of texts (as the fallback of a coalesce). #}
{% macro empty_text_list() -%}
    {{ return(adapter.dispatch('empty_text_list', 'bias_warehouse')()) }}
{%- endmacro %}

{% macro default__empty_text_list() -%}
    []
{%- endmacro %}

{% macro spark__empty_text_list() -%}
    cast(array() as array<string>)
{%- endmacro %}

{# `relation` (a name or a parenthesised select) with `columns` turned into rows: the other
   columns, then name_column (the column's name) and value_column (its value); null values
   give no row on both engines. #}
{% macro unpivot_columns(relation, columns, name_column, value_column) -%}
    {{ return(adapter.dispatch('unpivot_columns', 'bias_warehouse')(relation, columns, name_column, value_column)) }}
{%- endmacro %}

{% macro default__unpivot_columns(relation, columns, name_column, value_column) -%}
    unpivot {{ relation }}
    on {{ columns | join(', ') }}
    into name {{ name_column }} value {{ value_column }}
{%- endmacro %}

{% macro spark__unpivot_columns(relation, columns, name_column, value_column) -%}
    select * from {{ relation }}
    unpivot ({{ value_column }} for {{ name_column }} in ({{ columns | join(', ') }}))
{%- endmacro %}

{# The number of elements of a list. #}
{% macro element_count(list_expression) -%}
    {{ return(adapter.dispatch('element_count', 'bias_warehouse')(list_expression)) }}
{%- endmacro %}

{% macro default__element_count(list_expression) -%}
    len({{ list_expression }})
{%- endmacro %}

{% macro spark__element_count(list_expression) -%}
    size({{ list_expression }})
{%- endmacro %}

{# One row per element of a list column, as a select-list expression (no row for an empty or
   null list on both engines). #}
{% macro unnest_list(list_expression) -%}
    {{ return(adapter.dispatch('unnest_list', 'bias_warehouse')(list_expression)) }}
{%- endmacro %}

{% macro default__unnest_list(list_expression) -%}
    unnest({{ list_expression }})
{%- endmacro %}

{% macro spark__unnest_list(list_expression) -%}
    explode({{ list_expression }})
{%- endmacro %}

{# The element at 1-based `position` (-1: the last) of the elements of a list for which
   `condition` (on `variable`) holds; null when there is none. Spark indexes arrays from 0 and
   raises on an index out of range (ANSI mode): try_element_at counts from 1 and gives null. #}
{% macro list_element_where(list_expression, variable, condition, position) -%}
    {{ return(adapter.dispatch('list_element_where', 'bias_warehouse')(
        list_expression, variable, condition, position
    )) }}
{%- endmacro %}

{% macro default__list_element_where(list_expression, variable, condition, position) -%}
    list_filter({{ list_expression }}, lambda {{ variable }}: {{ condition }})[{{ position }}]
{%- endmacro %}

{% macro spark__list_element_where(list_expression, variable, condition, position) -%}
    try_element_at(filter({{ list_expression }}, {{ variable }} -> {{ condition }}), {{ position }})
{%- endmacro %}

{# The elements of a list for which `condition` (on `variable`) holds, in order. #}
{% macro list_where(list_expression, variable, condition) -%}
    {{ return(adapter.dispatch('list_where', 'bias_warehouse')(list_expression, variable, condition)) }}
{%- endmacro %}

{% macro default__list_where(list_expression, variable, condition) -%}
    list_filter({{ list_expression }}, lambda {{ variable }}: {{ condition }})
{%- endmacro %}

{% macro spark__list_where(list_expression, variable, condition) -%}
    filter({{ list_expression }}, {{ variable }} -> {{ condition }})
{%- endmacro %}

{# `expression` (on `variable`) of every element of a list, in order. #}
{% macro list_map(list_expression, variable, expression) -%}
    {{ return(adapter.dispatch('list_map', 'bias_warehouse')(list_expression, variable, expression)) }}
{%- endmacro %}

{% macro default__list_map(list_expression, variable, expression) -%}
    list_transform({{ list_expression }}, lambda {{ variable }}: {{ expression }})
{%- endmacro %}

{% macro spark__list_map(list_expression, variable, expression) -%}
    transform({{ list_expression }}, {{ variable }} -> {{ expression }})
{%- endmacro %}
