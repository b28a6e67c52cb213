{# The one dbt_utils test we need, written here because `dbt deps` cannot reach the hub. #}
{% test unique_combination_of_columns(model, combination_of_columns) %}
with grouped as (
    select {{ combination_of_columns | join(', ') }}, count(*) as n_rows
    from {{ model }}
    group by all
)
select * from grouped where n_rows > 1
{% endtest %}
