{# Use the layer name itself (staging, intermediate, marts) as the schema, not main_<layer>,
   so ad hoc SQL reads `marts.dim_corpus_documents`. #}
{% macro generate_schema_name(custom_schema_name, node) -%}
    {%- if custom_schema_name is none -%}{{ target.schema }}{%- else -%}{{ custom_schema_name | trim }}{%- endif -%}
{%- endmacro %}
