{# The one dbt_utils test we need, written here because `dbt deps` cannot reach the hub.
   Rows are first grouped by one 64-bit hash of the columns, which is much cheaper than grouping
   by the columns themselves over tens of millions of rows (e.g. raw retrieval results); only
   rows whose hash repeats are then grouped by the columns, so the rows returned are the same. #}
{% test unique_combination_of_columns(model, combination_of_columns) %}
    {{ adapter.dispatch('unique_combination_of_columns_sql', 'bias_warehouse')(model, combination_of_columns) }}
{% endtest %}

{% macro default__unique_combination_of_columns_sql(model, combination_of_columns) %}
{%- set columns = combination_of_columns | join(', ') -%}
with repeated_hashes as (
    select hash({{ columns }}) as row_hash
    from {{ model }}
    group by all
    having count(*) > 1
),

grouped as (
    select {{ columns }}, count(*) as n_rows
    from {{ model }}
    where hash({{ columns }}) in (select row_hash from repeated_hashes)
    group by all
)

select * from grouped where n_rows > 1
{% endmacro %}

{# Spark: one group by over the columns (the same rows). The hash pre-filter reads the model
   twice and joins it by an IN subquery, which Spark's optimizer pushes into every branch of a
   view that is a union of five aggregations (int_recsys_bias_grouped): minutes, then out of
   memory, for 259 rows. #}
{% macro spark__unique_combination_of_columns_sql(model, combination_of_columns) %}
{%- set columns = combination_of_columns | join(', ') -%}
select {{ columns }}, count(*) as n_rows
from {{ model }}
group by {{ columns }}
having count(*) > 1
{% endmacro %}
