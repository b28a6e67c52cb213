{# Aggregates the two engines spell, or treat nulls, differently. #}

{# The fraction-quantile of a column, interpolated linearly between the two nearest values.
   Spark's exact `percentile` interpolates the same way; percentile_approx does not. #}
{% macro continuous_quantile(column, fraction) -%}
    {{ return(adapter.dispatch('continuous_quantile', 'bias_warehouse')(column, fraction)) }}
{%- endmacro %}

{% macro default__continuous_quantile(column, fraction) -%}
    quantile_cont({{ column }}, {{ fraction }})
{%- endmacro %}

{% macro spark__continuous_quantile(column, fraction) -%}
    percentile({{ column }}, {{ fraction }})
{%- endmacro %}

{# Some non-null value of the group. DuckDB's any_value skips nulls; Spark's returns the
   first row's value, null or not, unless told to skip them. #}
{% macro any_non_null(column) -%}
    {{ return(adapter.dispatch('any_non_null', 'bias_warehouse')(column)) }}
{%- endmacro %}

{% macro default__any_non_null(column) -%}
    any_value({{ column }})
{%- endmacro %}

{% macro spark__any_non_null(column) -%}
    any_value({{ column }}, true)
{%- endmacro %}

{# The group's values as a list ordered by order_by, of the rows passing `where` when given
   (nulls kept). Spark's collect_list has no order and drops nulls: it collects
   (order_by, value) structs, sorts them, and keeps the values. #}
{% macro ordered_list(value, order_by, where=none) -%}
    {{ return(adapter.dispatch('ordered_list', 'bias_warehouse')(value, order_by, where)) }}
{%- endmacro %}

{% macro default__ordered_list(value, order_by, where) -%}
    list({{ value }} order by {{ order_by }}){% if where %} filter (where {{ where }}){% endif %}
{%- endmacro %}

{% macro spark__ordered_list(value, order_by, where) -%}
    transform(
        array_sort(collect_list(named_struct('sort_key', {{ order_by }}, 'value', {{ value }})){% if where %} filter (where {{ where }}){% endif %}),
        entry -> entry.value
    )
{%- endmacro %}
