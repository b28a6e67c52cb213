-- One row per bias feature: the patterns each rule set uses to find a mention of it.
with vignette_features as (
    select distinct bias_feature from {{ ref('stg_silent_bias__vignettes') }}
),

synonyms as (
    select
        lower(trim(bias_feature)) as bias_feature,
        lower(trim(synonym)) as term,
        coalesce(origin, 'user') as origin
    from {{ ref('silent_bias_feature_synonyms') }}
),

terms as (
    select
        bias_feature,
        bias_feature as term,
        'feature' as origin
    from vignette_features
    union
    select
        bias_feature,
        term,
        origin
    from synonyms
),

final as (
    select
        bias_feature,
        -- leftmost-first alternation: longer phrases first so "no cannabis use" wins over "cannabis"
        '(?i)\b(?:' || {{ ordered_string_agg(
            silent_bias_phrase_regex('term'), "'|'", 'length(term) desc, term'
        ) }} || ')\b' as word_boundary_pattern,
        {{ ordered_list('term', 'term', where="origin in ('feature', 'original_tooling')") }} as seed_compatible_terms,
        {{ ordered_list('term', 'term') }} as all_terms
    from terms
    group by bias_feature
)

select * from final
