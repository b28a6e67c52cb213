-- One row per vignette with its prompt normalised for counterfactual pairing: lowercased, every
-- feature (and synonym) of its dimension and every pairing mask of its dimension replaced by a
-- placeholder, whitespace collapsed. Two vignettes with equal masked prompts differ only in the demographic.
with vignettes as (
    select * from {{ ref('stg_silent_bias__vignettes') }}
),

feature_terms as (
    select * from {{ ref('int_silent_bias_feature_terms_aggregated') }}
),

dimension_term_rows as (
    select distinct
        vignettes.vignette_set,
        vignettes.dimension,
        {{ unnest_list('feature_terms.all_terms') }} as term
    from (select distinct
        vignette_set,
        dimension,
        bias_feature
    from vignettes) as vignettes
    inner join feature_terms
        on vignettes.bias_feature = feature_terms.bias_feature
),

dimension_terms as (
    select
        vignette_set,
        dimension,
        '(?i)\b(?:' || {{ ordered_string_agg(
            silent_bias_phrase_regex('term'), "'|'", 'length(term) desc, term'
        ) }} || ')\b' as feature_pattern
    from dimension_term_rows
    group by vignette_set, dimension
),

dimension_masks as (
    select
        lower(trim(dimension)) as dimension,
        '(?i)(?:' || {{ ordered_string_agg('pattern', "'|'", 'length(pattern) desc') }} || ')' as mask_pattern
    from {{ ref('silent_bias_pairing_masks') }}
    group by lower(trim(dimension))
),

masked as (
    select
        vignettes.*,
        -- masks first: a mask such as "bmi of 42" contains a synonym ("bmi") that would otherwise go first
        {{ regex_replace_all(
            regex_replace_all('lower(vignettes.prompt)', "coalesce(dimension_masks.mask_pattern, '[^\\s\\S]')", "'<mask>'"),
            'dimension_terms.feature_pattern', "'<feature>'"
        ) }} as masked_once
    from vignettes
    inner join dimension_terms
        on
            vignettes.vignette_set = dimension_terms.vignette_set
            and vignettes.dimension = dimension_terms.dimension
    left join dimension_masks
        on vignettes.dimension = dimension_masks.dimension
),

final as (
    select
        vignette_set,
        case_id,
        source_row,
        dimension,
        bias_feature,
        bias_label,
        trim({{ regex_replace_all('masked_once', "'\\s+'", "' '") }}) as masked_prompt
    from masked
)

select * from final
