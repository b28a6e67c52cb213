-- The paper's aggregation of R² at the five levels of recsys_bias_aggregated, over the
-- conditions that have an R² and whose dataset has the feature.
{% set levels = {
    'dataset_model_prompt': ['dataset', 'provider', 'prompt_style'],
    'prompt': ['prompt_style'],
    'dataset': ['dataset'],
    'model': ['provider'],
    'all': [],
} %}
with conditions as (
    select * from {{ ref('int_recsys_condition_r_squared') }}
    where r_squared is not null and feature_in_dataset
),

grouped as (
    {% for level, columns in levels.items() %}
        select
            run_id,
            result_source,
            result_set,
            '{{ level }}' as level,
            {% if columns %}concat_ws(' × ', {{ columns | join(', ') }}){% else %}'all'{% endif %} as group_value,
            {% for column in ['dataset', 'provider', 'prompt_style'] %}
                {% if column in columns %}{{ column }}{% else %}cast(null as varchar){% endif %} as {{ column }},
            {% endfor %}
            feature,
            count(*) as n_conditions,
            avg(r_squared) as r_squared_mean,
            count(*) filter (where p_value < alpha) as n_significant,
            avg(bias) as bias_mean
        from conditions
        group by all
        {% if not loop.last %}union all{% endif %}
    {% endfor %}
),

final as (
    select * from grouped
)

select * from final
