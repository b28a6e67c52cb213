{#- The recommendation bias family's run parameters, each with its documented default (macro family_var). -#}
{% macro recsys_run_parameter_defaults() -%}
    {%- set defaults %}
    # As published: the original paper's level for its raw-p markers (not a verdict).
    recsys_published_alpha: 0.05
    # Share of significant conditions above which an aggregated cell gets '*'.
    recsys_marker_one_star: 0.5
    # Share above which it gets '**'.
    recsys_marker_two_stars: 0.6
    # Share above which it gets '***'.
    recsys_marker_three_stars: 0.75
    # Features that exist only in some datasets, as 'glob=dataset,dataset' rules joined by ';'
    # (R² and feature-importance aggregates count them only there; '' counts everywhere).
    recsys_dataset_only_features: "author_*=twitter"
    {%- endset %}
    {{ return(fromyaml(defaults)) }}
{%- endmacro %}
