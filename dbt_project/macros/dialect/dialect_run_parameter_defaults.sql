{#- The dialect family's run parameters, each with its documented default (macro family_var). -#}
{% macro dialect_run_parameter_defaults() -%}
    {%- set defaults %}
    # Characters of the gold context shown beside error examples.
    snippet_chars: 240
    # The variant every other variant is compared against (variant_a of each paired comparison).
    dialect_reference_variant: sae
    # The k values the dialect study highlights: discordant tables, error examples, Holm family.
    dialect_highlight_k: [5, 10, 20]
    {%- endset %}
    {{ return(fromyaml(defaults)) }}
{%- endmacro %}
