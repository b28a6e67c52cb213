{#
    dbt's schema-change check of an incremental model (on_schema_change, which every run-keyed
    mart sets to 'fail': macro run_keyed_config), with both relations' columns read in one
    statement instead of one DESCRIBE each. The columns are dbt's Column objects of the same
    names and types, so dbt's own comparison decides (diff_columns, diff_column_data_types)
    and a changed mart fails as before; the source's columns are also the insert's column list.
#}
{% macro duckdb__check_for_schema_changes(source_relation, target_relation) %}
    {%- set query -%}
        select 'source' as side, column_name, column_type from (describe {{ source_relation.render() }})
        union all
        select 'target' as side, column_name, column_type from (describe {{ target_relation.render() }})
    {%- endset -%}
    {%- set columns = {'source': [], 'target': []} -%}
    {%- for row in run_query(query) -%}
        {%- do columns[row[0]].append(api.Column(row[1], row[2])) -%}
    {%- endfor -%}
    {%- set source_columns, target_columns = columns['source'], columns['target'] -%}
    {%- set source_not_in_target = diff_columns(source_columns, target_columns) -%}
    {%- set target_not_in_source = diff_columns(target_columns, source_columns) -%}
    {%- set new_target_types = diff_column_data_types(source_columns, target_columns) -%}
    {%- set schema_changed = source_not_in_target != [] or target_not_in_source != [] or new_target_types != [] -%}
    {%- do log('In ' ~ target_relation ~ ': schema changed: ' ~ schema_changed
        ~ '; source columns not in target: ' ~ source_not_in_target
        ~ '; target columns not in source: ' ~ target_not_in_source
        ~ '; new column types: ' ~ new_target_types) -%}
    {%- do return({
        'schema_changed': schema_changed,
        'source_not_in_target': source_not_in_target,
        'target_not_in_source': target_not_in_source,
        'source_columns': source_columns,
        'target_columns': target_columns,
        'new_target_types': new_target_types
    }) -%}
{% endmacro %}
