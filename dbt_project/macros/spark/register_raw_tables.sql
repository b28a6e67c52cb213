{#
    `dbt run-operation register_raw_tables --target spark --args '{"tables": [...]}'`, called by
    warehouse/spark_target.py after it wrote the raw Parquet: each table is declared again
    (an external table: dropping it keeps the files) so a changed raw schema is picked up,
    and its run_id=<id> folders are recovered as partitions. Each table: name, columns
    ([name, spark type], run_id last when partitioned), partitioned, location.
#}
{% macro register_raw_tables(tables) -%}
    {%- do run_query('create database if not exists raw') -%}
    {%- for table in tables -%}
        {%- set columns = [] -%}
        {%- for column in table['columns'] -%}
            {%- do columns.append('`' ~ column[0] ~ '` ' ~ column[1]) -%}
        {%- endfor -%}
        {%- set partitioning = 'partitioned by (run_id)' if table['partitioned'] else '' -%}
        {%- do run_query('drop table if exists raw.' ~ table['name']) -%}
{%- do run_query(
    'create table raw.' ~ table['name'] ~ ' (' ~ columns | join(', ') ~ ') using parquet '
    ~ partitioning ~ " location '" ~ table['location'] ~ "'"
) -%}
        {%- if table['partitioned'] -%}
            {%- do run_query('alter table raw.' ~ table['name'] ~ ' recover partitions') -%}
        {%- endif -%}
    {%- endfor -%}
{%- endmacro %}
