{# Aggregation levels of the directional-bias and importance marts: the five of
   recsys_bias_aggregated plus dataset_model (the paper's figure 04) and model_prompt
   (figures 05 and 10). Each maps to the condition columns it groups by. #}
{% macro recsys_levels() -%}
{{ return({
    'dataset_model_prompt': ['dataset', 'provider', 'prompt_style'],
    'dataset_model': ['dataset', 'provider'],
    'model_prompt': ['provider', 'prompt_style'],
    'prompt': ['prompt_style'],
    'dataset': ['dataset'],
    'model': ['provider'],
    'all': [],
}) }}
{%- endmacro %}

{# The level's group columns: group_value ('a × b', or 'all') then dataset, provider, prompt_style
   (null where the level does not group by them). #}
{% macro recsys_level_columns(columns) -%}
    {% if columns %}concat_ws(' × ', {{ columns | join(', ') }}){% else %}'all'{% endif %} as group_value,
    {% for column in ['dataset', 'provider', 'prompt_style'] -%}
    {% if column in columns %}{{ column }}{% else %}cast(null as varchar){% endif %} as {{ column }},
    {% endfor %}
{%- endmacro %}
