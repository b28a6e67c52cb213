{#
    dbt-spark's safe_cast, which renders unit-test fixture values, with list values written as
    Spark arrays: dbt prints a YAML list as a DuckDB list literal (['c', 'd']), which Spark
    cannot parse; and a text holding a quote (Cohen's d) as a concat() with chr(39). dbt looks for spark__safe_cast in the root project before the adapter's.
#}
{% macro spark__safe_cast(field, type) -%}
{%- if field is iterable and field is not string and field is not mapping -%}
{%- set elements = [] -%}
{%- for element in field -%}
{%- if element is string and "'" in element -%}
{{ exceptions.raise_compiler_error("a unit-test list value holds a quote: " ~ element) }}
{%- endif -%}
{%- do elements.append("'" ~ element ~ "'" if element is string else element | string) -%}
{%- endfor -%}
cast(array({{ elements | join(', ') }}) as {{ type }})
{%- elif field is string and field.startswith("'") and "\\'" in field -%}
{#- dbt wrote a quote in the value as \' , which escapedStringLiterals keeps: chr(39) instead -#}
cast(concat('{{ field[1:-1].split("\\'") | join("', chr(39), '") }}') as {{ type }})
{%- else -%}
{%- set complex = type.lower().startswith(('struct', 'array', 'map')) -%}
cast({{ field.strip('"').strip("'") if (complex and field is string) else field }} as {{ type }})
{%- endif -%}
{%- endmacro %}

{#
    A unit test's fixture rows (dbt's get_fixture_sql: one select per row, joined by union all).
    On Spark the rows are behind a REPARTITION hint: the optimizer's PushProjectionThroughUnion
    fails ("key not found: run_id") when a correlated subquery (run_parameter's) is projected
    over a union, which only a fixture of several rows builds here. DuckDB's is dbt's own.
#}
{% macro get_fixture_sql(rows, column_name_to_data_types) %}
{{ return(adapter.dispatch('unit_test_fixture_sql', 'bias_warehouse')(rows, column_name_to_data_types)) }}
{% endmacro %}

{% macro default__unit_test_fixture_sql(rows, column_name_to_data_types) %}
{{ return(dbt.get_fixture_sql(rows, column_name_to_data_types)) }}
{% endmacro %}

{% macro spark__unit_test_fixture_sql(rows, column_name_to_data_types) %}
{%- set fixture = dbt.get_fixture_sql(rows, column_name_to_data_types) -%}
{%- if rows | length > 1 -%}
{%- set fixture = 'select /*+ REPARTITION(1) */ * from (\n' ~ fixture ~ '\n) as fixture_rows' -%}
{%- endif -%}
{{ return(fixture) }}
{% endmacro %}
