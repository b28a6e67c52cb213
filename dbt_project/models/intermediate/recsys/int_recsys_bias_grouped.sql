-- depends_on: {{ ref('stg_warehouse__run_parameters') }}
-- The five aggregation levels of the original: each condition alone, then averaged by
-- prompt style, by dataset, by model (provider), and over everything. Reads the normalised
-- condition results (the rows of the pool_vs_recommended_summary mart), not the mart itself.
{% set levels = {
    'dataset_model_prompt': ['dataset', 'provider', 'prompt_style'],
    'prompt': ['prompt_style'],
    'dataset': ['dataset'],
    'model': ['provider'],
    'all': [],
} %}
with results as (
    select
        summary.*,
        {{ run_parameter('recsys_alpha', 'summary.run_id', 'double') }} as alpha
    from {{ ref('int_recsys_condition_results_normalised') }} as summary
),

grouped as (
    {% for level, columns in levels.items() %}
        select
            run_id,
            alpha,
            result_source,
            result_set,
            '{{ level }}' as level,
            {% if columns %}concat_ws(' × ', {{ columns | join(', ') }}){% else %}'all'{% endif %} as group_value,
            {% for column in ['dataset', 'provider', 'prompt_style'] %}
                {% if column in columns %}{{ column }}{% else %}cast(null as varchar){% endif %} as {{ column }},
            {% endfor %}
            feature,
            count(*) as n_conditions,
            avg(bias) as bias_mean,
            avg(bias_normalized) as normalized_bias_mean,
            avg(bias_signed_normalized) as signed_normalized_bias_mean,
            count(*) filter (where p_value < alpha) as n_significant,
            count(p_value_adjusted) as n_adjusted,
            count(*) filter (where p_value_adjusted < alpha) as n_significant_adjusted
        from results
        group by all
        {% if not loop.last %}union all{% endif %}
    {% endfor %}
),

final as (
    select * from grouped
)

select * from final
