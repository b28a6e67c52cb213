-- depends_on: {{ ref('stg_warehouse__run_parameters') }}
-- The five aggregation levels of the original: each condition alone, then averaged by
-- prompt style, by dataset, by model (provider), and over everything. Reads the normalised
-- condition results (the rows of the fct_recsys_pool_vs_recommended mart), not the mart itself.
-- n_significant counts raw p below the paper's level (as published); n_significant_adjusted the
-- verdicts: adjusted p below the study's [verdicts] alpha.
with results as (
    select
        summary.*,
        {{ run_parameter('recsys_published_alpha', 'summary.run_id', 'double') }} as published_alpha,
        {{ run_parameter('verdicts_alpha', 'summary.run_id', 'double') }} as verdicts_alpha
    from {{ ref('int_recsys_condition_results_normalised') }} as summary
),

grouped as (
    {% call(level) recsys_grouped_by_level('results', figure_levels=false) %}
        published_alpha,
        verdicts_alpha,
        feature,
        count(*) as n_conditions,
        avg(bias) as bias_mean,
        avg(bias_normalized) as normalized_bias_mean,
        avg(bias_signed_normalized) as signed_normalized_bias_mean,
        count(*) filter (where p_value < published_alpha) as n_significant,
        count(p_value_adjusted) as n_adjusted,
        count(*) filter (where p_value_adjusted < verdicts_alpha) as n_significant_adjusted
    {% endcall %}
),

final as (
    select * from grouped
)

select * from final
