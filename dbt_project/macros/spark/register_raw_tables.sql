{#
    `dbt run-operation register_raw_tables --target spark --args '{"tables": [...]}'`, called by
    warehouse/spark/raw_registration.py after warehouse/spark/raw_export.py wrote the raw Parquet.
    Each table: name, location, partitioned, and its action:
    - create (columns: [name, spark type], run_id last when partitioned): declared again (an
      external table: dropping it keeps the files), its run_id=<id> folders recovered as partitions;
    - update: add (run ids whose folders become partitions), refresh (Spark lists the table's
      files again: a folder it knew was written again).
#}
{% macro register_raw_tables(tables) -%}
    {%- do run_query('create database if not exists raw') -%}
    {%- for table in tables -%}
        {%- if table.get('action', 'create') == 'create' -%}
            {%- do declare_raw_table(table) -%}
        {%- else -%}
            {%- do update_raw_table(table) -%}
        {%- endif -%}
    {%- endfor -%}
{%- endmacro %}

{% macro declare_raw_table(table) -%}
    {%- set columns = [] -%}
    {%- for column in table['columns'] -%}
        {%- do columns.append('`' ~ column[0] ~ '` ' ~ column[1]) -%}
    {%- endfor -%}
    {%- set partitioning = 'partitioned by (run_id)' if table['partitioned'] else '' -%}
    {%- do run_query('drop table if exists raw.' ~ table['name']) -%}
{%- do run_query(
    'create table raw.' ~ table['name'] ~ ' (' ~ columns | join(', ') ~ ') using parquet '
    ~ partitioning ~ ' location ' ~ spark_string(table['location'])
) -%}
    {%- if table['partitioned'] -%}
        {%- do run_query('alter table raw.' ~ table['name'] ~ ' recover partitions') -%}
    {%- endif -%}
{%- endmacro %}

{% macro update_raw_table(table) -%}
    {%- set partitions = [] -%}
    {%- for run_id in table.get('add', []) -%}
        {%- set folder = table['location'] ~ '/run_id=' ~ run_id -%}
        {%- set partition = 'partition (run_id = ' ~ spark_string(run_id) ~ ')' -%}
        {%- do partitions.append(partition ~ ' location ' ~ spark_string(folder)) -%}
    {%- endfor -%}
    {%- if partitions -%}
        {%- do run_query('alter table raw.' ~ table['name'] ~ ' add if not exists ' ~ partitions | join(' ')) -%}
    {%- endif -%}
    {%- if table.get('refresh') -%}
        {%- do run_query('refresh table raw.' ~ table['name']) -%}
    {%- endif -%}
{%- endmacro %}

{#- A Spark SQL string literal: a quote in a folder's name (a warehouse home in "it's") is written \',
    and a backslash, which Spark reads as an escape, \\. -#}
{% macro spark_string(text) -%}
    {{- "'" ~ (text | string).replace('\\', '\\\\').replace("'", "\\'") ~ "'" -}}
{%- endmacro %}
