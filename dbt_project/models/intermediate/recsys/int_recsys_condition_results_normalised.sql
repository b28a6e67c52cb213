-- The original's per-feature min-max over all conditions of a result set, and a signed
-- alternative (bias / max |bias|) that keeps the direction of Cohen's d.
with results as (
    select * from {{ ref('int_recsys_condition_results') }}
),

final as (
    select
        *,
        -- 0 when the feature's bias is constant or never positive, as the original defines it.
        case
            when max(bias) over per_feature > min(bias) over per_feature and max(bias) over per_feature > 0
                then (bias - min(bias) over per_feature) / (max(bias) over per_feature - min(bias) over per_feature)
            else 0.0
        end as bias_normalized,
        case
            when max(abs(bias)) over per_feature > 0 then bias / max(abs(bias)) over per_feature
            else 0.0
        end as bias_signed_normalized
    from results
    window per_feature as (partition by run_id, result_source, result_set, feature)
)

select * from final
