{#
    dbt-spark's load_csv_rows with each value written as a literal: the adapter's session mode
    puts a seed value between quotes as it is (a quote inside, as in "the patient's gender",
    ends the literal). Here a text's quotes and backslashes become chr(39) and chr(92) pieces
    of a concat(), so any text survives, whatever spark.sql.parser.escapedStringLiterals says.
    dbt looks for spark__load_csv_rows in the root project before the adapter's.
#}
{% macro spark__load_csv_rows(model, agate_table) %}
{% set column_override = model['config'].get('column_types', {}) %}
{% set statements = [] %}
{% for chunk in agate_table.rows | batch(get_batch_size()) %}
{% set sql %}
insert into {{ this.render() }} values
{% for row in chunk -%}
({%- for col_name in agate_table.column_names -%}
{%- set type = column_override.get(col_name, adapter.convert_type(agate_table, loop.index0)) -%}
cast({{ spark_seed_literal(row[loop.index0]) }} as {{ type }})
{%- if not loop.last %},{% endif %}
{%- endfor -%})
{%- if not loop.last %},{% endif %}
{%- endfor %}
{% endset %}
{% do adapter.add_query(sql, abridge_sql_log=True) %}
{% if loop.index0 == 0 %}{% do statements.append(sql) %}{% endif %}
{% endfor %}
{{ return(statements[0]) }}
{% endmacro %}

{# One seed value as a Spark SQL literal (null, a number, a boolean, or a text). #}
{% macro spark_seed_literal(value) -%}
{%- if value is none -%}
null
{%- elif value is sameas true or value is sameas false -%}
{{ 'true' if value else 'false' }}
{%- elif value is number -%}
{{ value }}
{%- else -%}
{%- set pieces = [] -%}
{%- for piece in modules.re.split("(['\\\\])", value | string) if piece != '' -%}
{%- do pieces.append('chr(39)' if piece == "'" else ('chr(92)' if piece == '\\' else "'" ~ piece ~ "'")) -%}
{%- endfor -%}
{{ 'concat(' ~ pieces | join(', ') ~ ')' if pieces | length > 1 else (pieces[0] if pieces else "''") }}
{%- endif -%}
{%- endmacro %}
