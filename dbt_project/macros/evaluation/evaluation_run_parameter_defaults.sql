{#- The retrieval evaluation family's run parameters, each with its documented default (macro family_var). -#}
{% macro evaluation_run_parameter_defaults() -%}
    {%- set defaults %}
    # The cutoffs k every metric is computed at (keep them <= the run's depth).
    evaluation_k: [1, 3, 5, 10, 20]
    # The k of the dense-vs-BM25 overlap diagnostics.
    evaluation_overlap_k: 10
    # The metric and k the fusion sweep chooses its weight / RRF constant by.
    evaluation_select_metric: ndcg
    evaluation_select_k: 10
    {%- endset %}
    {{ return(fromyaml(defaults)) }}
{%- endmacro %}
