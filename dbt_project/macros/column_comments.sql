{#
    dbt-duckdb's docs (persist_docs, dbt_project.yml) written only where they differ from the
    stored comments. An incremental mart is documented again after every build that adds a
    run's rows: dbt-duckdb rewrote its table comment every time and read its columns twice
    (a DESCRIBE, then the stored comments), and each `comment on` rewrites the table's
    catalog entry. Here one catalog read gives the stored table comment, the column names and
    their comments, and the comments that differ are written in one statement (none when
    every comment is as documented, the usual case).
#}
{% macro duckdb__persist_docs(relation, model, for_relation, for_columns) -%}
    {%- set relation_comment = model.description
        if for_relation and config.persist_relation_docs() and model.description else none -%}
    {%- set column_dict = model.columns if for_columns and config.persist_column_docs() and model.columns else {} -%}
    {%- if relation_comment is none and not column_dict -%}
        {%- do return(none) -%}
    {%- endif -%}
    {%- set stored = stored_comments(relation) -%}
    {%- set statements = [] -%}
    {%- if relation_comment is not none and stored.relation != relation_comment -%}
        {%- do statements.append(duckdb__alter_relation_comment(relation, relation_comment)) -%}
    {%- endif -%}
    {%- if column_dict -%}
        {%- set documented = validate_doc_columns(relation, column_dict, stored.columns.keys() | list) -%}
        {%- do statements.append(changed_column_comments(relation, documented, stored.columns)) -%}
    {%- endif -%}
    {%- set sql = statements | join('\n') -%}
    {%- if sql | trim -%}
        {%- do run_query(sql) -%}
    {%- endif -%}
{%- endmacro %}


{# The column comments (dbt's alter_column_comment) that differ from the stored ones. #}
{% macro duckdb__alter_column_comment(relation, column_dict) %}
    {{- changed_column_comments(relation, column_dict, stored_comments(relation).columns) -}}
{% endmacro %}


{# {'relation': the relation's comment, 'columns': {column name: its comment}}, in one catalog read. #}
{% macro stored_comments(relation) %}
    {%- set kind = 'view' if relation.type == 'view' else 'table' -%}
    {%- set schema = "database_name = '" ~ relation.database ~ "' and schema_name = '" ~ relation.schema ~ "'" -%}
    {%- set query = "select column_name, comment from duckdb_columns() where " ~ schema
        ~ " and table_name = '" ~ relation.identifier ~ "'"
        ~ " union all select null, comment from duckdb_" ~ kind ~ "s() where " ~ schema
        ~ " and " ~ kind ~ "_name = '" ~ relation.identifier ~ "'" -%}
    {%- set stored = {'relation': none, 'columns': {}} -%}
    {%- for row in run_query(query) -%}
        {%- if row[0] is none -%}
            {%- do stored.update({'relation': row[1]}) -%}
        {%- else -%}
            {%- do stored['columns'].update({row[0]: row[1]}) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- do return(stored) -%}
{% endmacro %}


{# `comment on column` for each documented column whose stored comment differs. #}
{% macro changed_column_comments(relation, column_dict, stored) %}
    {%- for column_name in column_dict if column_name in stored -%}
        {%- set comment = column_dict[column_name]['description'] -%}
        {%- if stored[column_name] != comment %}
    comment on column {{ relation }}.{{ adapter.quote(column_name) if column_dict[column_name]['quote'] else column_name }} is {{ duckdb_escape_comment(comment) }};
        {%- endif -%}
    {%- endfor -%}
{% endmacro %}
