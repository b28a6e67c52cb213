{#
    dbt-duckdb's column comments (persist_docs, dbt_project.yml), writing only the comments
    that differ from the stored ones. An incremental mart is documented again after every build
    that adds a run's rows, and each `comment on column` rewrites the table's catalog entry: a
    monitoring tick paid a few hundred such writes to leave every comment as it was. The stored
    comments and the column names come from one catalog read (dbt-duckdb reads the names too).
#}
{% macro duckdb__alter_column_comment(relation, column_dict) %}
    {%- set stored = {} -%}
    {%- set query = "select column_name, comment from duckdb_columns() where database_name = '"
        ~ relation.database ~ "' and schema_name = '" ~ relation.schema
        ~ "' and table_name = '" ~ relation.identifier ~ "'" -%}
    {%- for row in run_query(query) -%}
        {%- do stored.update({row[0]: row[1]}) -%}
    {%- endfor -%}
    {%- for column_name in column_dict if column_name in stored -%}
        {%- set comment = column_dict[column_name]['description'] -%}
        {%- if stored[column_name] != comment %}
    comment on column {{ relation }}.{{ adapter.quote(column_name) if column_dict[column_name]['quote'] else column_name }} is {{ duckdb_escape_comment(comment) }};
        {%- endif -%}
    {%- endfor -%}
{% endmacro %}
