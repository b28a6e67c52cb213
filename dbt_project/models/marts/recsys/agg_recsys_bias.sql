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

marker_thresholds as (
    {{ significance_thresholds_by_run('shares') }}
),

final as (
    select
        shares.run_id,
        shares.level,
        shares.group_value,
        shares.feature,
        shares.normalized_bias_mean,
        shares.share_significant,
        {{ significance_marker('shares.share_significant', 'marker_thresholds') }} as marker,
        shares.result_source,
        shares.result_set,
        shares.dataset,
        shares.provider,
        shares.prompt_style,
        shares.n_conditions,
        shares.n_significant,
        shares.bias_mean,
        shares.signed_normalized_bias_mean,
        shares.share_significant_adjusted,
        {{ significance_marker('shares.share_significant_adjusted', 'marker_thresholds') }} as marker_adjusted
    from shares
    left join marker_thresholds
        on shares.run_id is not distinct from marker_thresholds.run_id
)

select * from final
