-- Counterfactual pairs: two vignettes of one set and dimension whose masked prompts are equal but whose
-- features differ. The first-listed member is the reference; its label is the pair's reference label
-- (in the original vignette file the stereotyped case precedes its comparison case).
with masked as (
    select * from {{ ref('int_silent_bias_vignettes_masked') }}
),

final as (
    select
        reference.vignette_set,
        reference.case_id || '~' || counterpart.case_id as pair_id,
        reference.dimension,
        reference.case_id as reference_case_id,
        counterpart.case_id as counterpart_case_id,
        reference.bias_feature as reference_feature,
        counterpart.bias_feature as counterpart_feature,
        reference.bias_label as reference_label,
        counterpart.bias_label as counterpart_label,
        reference.masked_prompt
    from masked as reference
    inner join masked as counterpart
        on
            reference.vignette_set = counterpart.vignette_set
            and reference.dimension = counterpart.dimension
            and reference.masked_prompt = counterpart.masked_prompt
            and reference.source_row < counterpart.source_row
            and reference.bias_feature <> counterpart.bias_feature
)

select * from final
