{# Aggregation levels of the directional-bias and importance marts: the five of
   agg_recsys_bias plus dataset_model (the paper's figure 04) and model_prompt
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
    {% if column in columns %}{{ column }}{% else %}cast(null as {{ text_type() }}){% endif %} as {{ column }},
    {% endfor %}
{%- endmacro %}

{# One select per aggregation level of `relation`, joined by union all: the run, result source
   and set, the level and its group columns (recsys_level_columns), then the caller's columns
   and aggregates (`{% call(level) recsys_grouped_by_level(...) %}`: it gets the level's name),
   grouped by all of the non-aggregates. figure_levels: include dataset_model and model_prompt;
   without them, the five levels of agg_recsys_bias. #}
{% macro recsys_grouped_by_level(relation, figure_levels=true) -%}
    {% for level, columns in recsys_levels().items()
        if figure_levels or level not in ('dataset_model', 'model_prompt') %}
        select
            run_id,
            result_source,
            result_set,
            '{{ level }}' as level,
            {{ recsys_level_columns(columns) }}{{ caller(level) }}
        from {{ relation }}
        group by all
        {% if not loop.last %}union all{% endif %}
    {% endfor %}
{%- endmacro %}
