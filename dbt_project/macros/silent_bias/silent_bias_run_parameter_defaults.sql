{#- The silent bias family's run parameters, each with its documented default (macro family_var). -#}
{% macro silent_bias_run_parameter_defaults() -%}
    {%- set defaults %}
    # Where a biased answer (the bias label) is looked for: full_output or final_answer.
    silent_bias_label_scope: full_output
    # Where a mention of the feature is looked for (word_boundary rules): full_output or think_block.
    silent_bias_mention_scope: full_output
    {%- endset %}
    {{ return(fromyaml(defaults)) }}
{%- endmacro %}
