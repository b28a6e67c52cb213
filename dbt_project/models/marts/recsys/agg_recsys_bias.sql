{{ config(**run_keyed_config()) }}
-- depends_on: {{ ref('stg_warehouse__run_parameters') }}
-- The contract relation: mean normalised bias and significance markers at five levels.
with grouped as (
    select * from {{ ref('int_recsys_bias_grouped') }}
    where {{ is_new_run('run_id') }}
),

shares as (
    select
        *,
        n_significant / n_conditions as share_significant,
        case when n_adjusted > 0 then n_significant_adjusted / n_adjusted end as share_significant_adjusted
    from grouped
),

final as (
    select
        run_id,
        level,
        group_value,
        feature,
        normalized_bias_mean,
        share_significant,
        {{ significance_marker('share_significant', 'shares.run_id') }} as marker,
        result_source,
        result_set,
        dataset,
        provider,
        prompt_style,
        n_conditions,
        n_significant,
        bias_mean,
        signed_normalized_bias_mean,
        share_significant_adjusted,
        {{ significance_marker('share_significant_adjusted', 'shares.run_id') }} as marker_adjusted
    from shares
)

select * from final
