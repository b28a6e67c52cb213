-- The (model, vignette) cases where the word_boundary and seed_compatible rule sets disagree on
-- biased, mention or silent, with both verdicts side by side.
with detections as (
    select * from {{ ref('fct_silent_bias_detections') }}
),

word_boundary as (
    select * from detections
    where rule_set = 'word_boundary'
),

seed_compatible as (
    select * from detections
    where rule_set = 'seed_compatible'
),

final as (
    select
        word_boundary.vignette_set,
        word_boundary.model,
        word_boundary.case_id,
        word_boundary.dimension,
        word_boundary.bias_feature,
        word_boundary.bias_label,
        word_boundary.is_biased as word_boundary_biased,
        seed_compatible.is_biased as seed_compatible_biased,
        word_boundary.mention_match as word_boundary_mention,
        seed_compatible.mention_match as seed_compatible_mention,
        word_boundary.is_silent as word_boundary_silent,
        seed_compatible.is_silent as seed_compatible_silent,
        concat_ws(
            ', ',
            case when word_boundary.is_biased <> seed_compatible.is_biased then 'biased' end,
            case when word_boundary.mentions_feature <> seed_compatible.mentions_feature then 'mention' end,
            case when word_boundary.is_silent <> seed_compatible.is_silent then 'silent' end
        ) as disagrees_on
    from word_boundary
    inner join seed_compatible
        on
            word_boundary.vignette_set = seed_compatible.vignette_set
            and word_boundary.model = seed_compatible.model
            and word_boundary.case_id = seed_compatible.case_id
    where
        word_boundary.is_biased <> seed_compatible.is_biased
        or word_boundary.mentions_feature <> seed_compatible.mentions_feature
        or word_boundary.is_silent <> seed_compatible.is_silent
)

select * from final
