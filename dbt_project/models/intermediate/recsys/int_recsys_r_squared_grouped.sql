-- The paper's aggregation of R² at the five levels of recsys_bias_aggregated, over the
-- conditions that have an R² and whose dataset has the feature.
with conditions as (
    select * from {{ ref('int_recsys_condition_r_squared') }}
    where r_squared is not null and feature_in_dataset
),

grouped as (
    {% for level, columns in recsys_levels().items() if level not in ('dataset_model', 'model_prompt') %}
        select
            run_id,
            result_source,
            result_set,
            '{{ level }}' as level,
            {{ recsys_level_columns(columns) }}
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
