{#
    dbt-spark's safe_cast, which renders unit-test fixture values, with list values written as
    Spark arrays: dbt prints a YAML list as a DuckDB list literal (['c', 'd']), which Spark
    cannot parse. dbt looks for spark__safe_cast in the root project before the adapter's.
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
{%- else -%}
{%- set complex = type.lower().startswith(('struct', 'array', 'map')) -%}
cast({{ field.strip('"').strip("'") if (complex and field is string) else field }} as {{ type }})
{%- endif -%}
{%- endmacro %}
