-- The paper's aggregation of R² at the five levels of agg_recsys_bias, over the
-- conditions that have an R² and whose dataset has the feature.
with conditions as (
    select * from {{ ref('int_recsys_condition_r_squared') }}
    where r_squared is not null and feature_in_dataset
),

grouped as (
    {% call(level) recsys_grouped_by_level('conditions', figure_levels=false) %}
        feature,
        count(*) as n_conditions,
        avg(r_squared) as r_squared_mean,
        count(*) filter (where p_value < alpha) as n_significant,
        avg(bias) as bias_mean
    {% endcall %}
),

final as (
    select * from grouped
)

select * from final
