-- The original's per-feature min-max over all conditions of a result set, and a signed
-- alternative (bias / max |bias|) that keeps the direction of Cohen's d.
with results as (
    select * from {{ ref('int_recsys_condition_results') }}
),

feature_ranges as (
    select
        *,
        min(bias) over per_feature as feature_bias_min,
        max(bias) over per_feature as feature_bias_max,
        max(abs(bias)) over per_feature as feature_bias_max_abs
    from results
    window per_feature as (partition by run_id, result_source, result_set, feature)
),

final as (
    select
        * exclude (feature_bias_min, feature_bias_max, feature_bias_max_abs),
        -- 0 when the feature's bias is constant or never positive, as the original defines it.
        case
            when feature_bias_max > feature_bias_min and feature_bias_max > 0
                then (bias - feature_bias_min) / (feature_bias_max - feature_bias_min)
            else 0.0
        end as bias_normalized,
        case
            when feature_bias_max_abs > 0 then bias / feature_bias_max_abs
            else 0.0
        end as bias_signed_normalized
    from feature_ranges
)

select * from final
